//! The size parameter `load` stands for, per workload kind (docs/workloads.md, "Offered load"):
//! `rate` (connections/s) of `http10` with `arrival = "poisson"` and of `packmime`; `users` of
//! `http10` with `arrival = "users"` and of `mah`; `flows` of `pareto_web`.

use super::text::{g, round_half_even};
use toml::{Table, Value};

/// A calibrated workload parameter.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Parameter {
    /// New connections per second.
    Rate,
    /// Simulated users (browsers).
    Users,
    /// Concurrent flows.
    Flows,
}

impl Parameter {
    /// The parameter of the `[[workload]]` table `w`, or None for a kind without one (an
    /// `http10` table names its `arrival` explicitly to have one).
    pub fn of(w: &Table) -> Option<Parameter> {
        let kind = w.get("kind").and_then(Value::as_str)?;
        match kind {
            "http10" => match w.get("arrival").and_then(Value::as_str)? {
                "poisson" => Some(Parameter::Rate),
                "users" => Some(Parameter::Users),
                _ => None,
            },
            "mah" => Some(Parameter::Users),
            "packmime" => Some(Parameter::Rate),
            "pareto_web" => Some(Parameter::Flows),
            _ => None,
        }
    }

    /// The workload key.
    pub fn key(self) -> &'static str {
        match self {
            Parameter::Rate => "rate",
            Parameter::Users => "users",
            Parameter::Flows => "flows",
        }
    }

    /// Parses [`key`](Self::key).
    pub fn from_key(key: &str) -> Option<Parameter> {
        [Parameter::Rate, Parameter::Users, Parameter::Flows]
            .into_iter()
            .find(|p| p.key() == key)
    }

    /// Whether values are whole (users and flows).
    pub fn whole(self) -> bool {
        self != Parameter::Rate
    }

    /// Unit of a value, plural: `conn/s`, `users`, `flows`.
    pub fn unit(self) -> &'static str {
        match self {
            Parameter::Rate => "conn/s",
            Parameter::Users => "users",
            Parameter::Flows => "flows",
        }
    }

    /// Unit of one step of the value: `conn/s`, `user`, `flow`.
    pub fn per(self) -> &'static str {
        match self {
            Parameter::Rate => "conn/s",
            Parameter::Users => "user",
            Parameter::Flows => "flow",
        }
    }

    /// Pilot run value (small: it only places the automatic points; aqmlab choice).
    pub fn pilot(self) -> f64 {
        match self {
            Parameter::Rate => 10.0,
            Parameter::Users => 100.0,
            Parameter::Flows => 10.0,
        }
    }

    /// `x` as the workload key takes it: a whole number (halves to even) or a float.
    pub fn typed(self, x: f64) -> Value {
        if self.whole() {
            Value::Integer(round_half_even(x) as i64)
        } else {
            Value::Float(x)
        }
    }

    /// A calibration point: whole and at least 1, or a rate kept to 4 significant digits.
    pub fn point(self, x: f64) -> f64 {
        if self.whole() {
            round_half_even(x).max(1.0)
        } else {
            g(x, 4).parse().unwrap_or(x)
        }
    }

    /// A resolved value: whole, or a rate kept to 6 significant digits (the value printed is
    /// the value run).
    pub fn resolved(self, x: f64) -> f64 {
        if self.whole() {
            round_half_even(x)
        } else {
            g(x, 6).parse().unwrap_or(x)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn wl(text: &str) -> Table {
        toml::from_str(text).unwrap()
    }

    #[test]
    fn parameter_per_kind() {
        let p = |t: &str| Parameter::of(&wl(t));
        assert_eq!(
            p("kind = \"http10\"\narrival = \"poisson\""),
            Some(Parameter::Rate)
        );
        assert_eq!(
            p("kind = \"http10\"\narrival = \"users\""),
            Some(Parameter::Users)
        );
        assert_eq!(p("kind = \"http10\""), None);
        assert_eq!(p("kind = \"mah\""), Some(Parameter::Users));
        assert_eq!(p("kind = \"packmime\""), Some(Parameter::Rate));
        assert_eq!(p("kind = \"pareto_web\""), Some(Parameter::Flows));
        assert_eq!(p("kind = \"bulk\""), None);
    }

    #[test]
    fn rounding_of_points_and_values() {
        assert_eq!(Parameter::Rate.point(431.0344), 431.0);
        assert_eq!(Parameter::Rate.point(71.8391), 71.84);
        assert_eq!(Parameter::Users.point(0.2), 1.0);
        assert_eq!(Parameter::Users.point(2.5), 2.0);
        assert_eq!(Parameter::Rate.resolved(431.0344827586207), 431.034);
        assert_eq!(Parameter::Flows.resolved(12.5), 12.0);
        assert_eq!(Parameter::Users.typed(3012.4), Value::Integer(3012));
        assert_eq!(Parameter::Rate.typed(1.5), Value::Float(1.5));
    }
}
