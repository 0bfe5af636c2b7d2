//! The safe expression language of derived values (`[sweep.derive]`, a tuning table's derived
//! parameters): Python's arithmetic on a small grammar, parsed here and evaluated by walking
//! the tree; nothing else can be written.
//!
//! - numbers (`3`, `2.5`, `1e3`), strings (`'ms'`, `"ms"`), `True` / `False`;
//! - `+ - * / // % **` and unary `-` / `+` on numbers with Python's rules (`/` of integers is a
//!   float, `//` and `%` floor toward minus infinity, `**` with an exponent of at most 64 in
//!   magnitude so a typo cannot hang a sweep); `+` joins two strings;
//! - `min(...)`, `max(...)`, `abs(x)`, `round(x[, n])` (half to even, as Python),
//!   `int(x)`, `float(x)`, `str(x)`;
//! - key paths of the resolved scenario, as written in the sweep table: `queue.min_th`,
//!   `workload[0].rate`, `variant[red].queue.limit`, sweep variables `var.load`.
//!
//! The results are Python's for every expression the shipped studies use (the ids of their
//! runs depend on them: `round(3012 * var.load / 98)`, `135.0 * var.load`).
//!
//! Validation: tests below (each operator by hand, the refusals).

use super::canonical::{py_float, py_repr, py_str};
use toml::Value;

/// Largest exponent magnitude of `**`.
pub const MAX_EXPONENT: i64 = 64;

/// Functions an expression may call.
pub const FUNCTIONS: [&str; 7] = ["abs", "float", "int", "max", "min", "round", "str"];

/// A parsed expression: the text as written and the key paths it reads, in order.
#[derive(Clone, Debug)]
pub struct Expr {
    pub text: String,
    pub refs: Vec<String>,
    tree: Node,
}

#[derive(Clone, Debug)]
enum Node {
    Const(Value),
    Ref(String),
    Neg(Box<Node>),
    Pos(Box<Node>),
    Bin(Op, Box<Node>, Box<Node>),
    Call(String, Vec<Node>),
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Op {
    Add,
    Sub,
    Mul,
    Div,
    FloorDiv,
    Mod,
    Pow,
}

#[derive(Clone, Debug, PartialEq)]
enum Tok {
    Num(Value),
    Str(String),
    Name(String),
    Sym(&'static str),
}

const SYMBOLS: [&str; 13] = [
    "**", "//", "+", "-", "*", "/", "%", "(", ")", "[", "]", ".", ",",
];

fn tokenize(text: &str) -> Result<Vec<Tok>, String> {
    let b: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if c.is_whitespace() {
            i += 1;
        } else if c.is_ascii_digit() || (c == '.' && b.get(i + 1).is_some_and(char::is_ascii_digit))
        {
            let start = i;
            let mut float = false;
            while i < b.len() && (b[i].is_ascii_digit() || b[i] == '_') {
                i += 1;
            }
            if i < b.len() && b[i] == '.' {
                float = true;
                i += 1;
                while i < b.len() && (b[i].is_ascii_digit() || b[i] == '_') {
                    i += 1;
                }
            }
            if i < b.len() && (b[i] == 'e' || b[i] == 'E') {
                let mut j = i + 1;
                if j < b.len() && (b[j] == '+' || b[j] == '-') {
                    j += 1;
                }
                if j < b.len() && b[j].is_ascii_digit() {
                    float = true;
                    i = j;
                    while i < b.len() && b[i].is_ascii_digit() {
                        i += 1;
                    }
                }
            }
            let lit: String = b[start..i].iter().filter(|c| **c != '_').collect();
            let v = if float {
                lit.parse::<f64>().map(Value::Float).ok()
            } else {
                lit.parse::<i64>().map(Value::Integer).ok()
            };
            out.push(Tok::Num(
                v.ok_or_else(|| format!("syntax error: bad number {lit:?}"))?,
            ));
        } else if c.is_alphabetic() || c == '_' {
            let start = i;
            while i < b.len() && (b[i].is_alphanumeric() || b[i] == '_') {
                i += 1;
            }
            out.push(Tok::Name(b[start..i].iter().collect()));
        } else if c == '\'' || c == '"' {
            let mut s = String::new();
            i += 1;
            loop {
                match b.get(i) {
                    None => return Err("syntax error: unterminated string literal".into()),
                    Some(&q) if q == c => break,
                    Some('\\') => {
                        let e = b.get(i + 1).copied().unwrap_or('\\');
                        s.push(match e {
                            'n' => '\n',
                            't' => '\t',
                            'r' => '\r',
                            other => other,
                        });
                        i += 2;
                        continue;
                    }
                    Some(&x) => s.push(x),
                }
                i += 1;
            }
            i += 1;
            out.push(Tok::Str(s));
        } else if let Some(sym) = SYMBOLS.iter().find(|s| {
            let n = s.len();
            i + n <= b.len() && b[i..i + n].iter().collect::<String>() == **s
        }) {
            out.push(Tok::Sym(sym));
            i += sym.len();
        } else {
            return Err(format!("syntax error: unexpected character {c:?}"));
        }
    }
    Ok(out)
}

struct Parser {
    toks: Vec<Tok>,
    pos: usize,
    text: String,
}

impl Parser {
    fn peek(&self) -> Option<&Tok> {
        self.toks.get(self.pos)
    }

    fn eat(&mut self, sym: &str) -> bool {
        if matches!(self.peek(), Some(Tok::Sym(s)) if *s == sym) {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    fn unsupported(&self) -> String {
        let rest: Vec<String> = self.toks[self.pos..]
            .iter()
            .map(|t| match t {
                Tok::Num(v) => py_repr(v),
                Tok::Str(s) => py_str(s),
                Tok::Name(n) => n.clone(),
                Tok::Sym(s) => s.to_string(),
            })
            .collect();
        format!(
            "{}: unsupported syntax at {}",
            py_str(&self.text),
            py_str(&rest.join(" "))
        )
    }

    /// sum := term (('+' | '-') term)*
    fn sum(&mut self) -> Result<Node, String> {
        let mut left = self.term()?;
        loop {
            let op = if self.eat("+") {
                Op::Add
            } else if self.eat("-") {
                Op::Sub
            } else {
                return Ok(left);
            };
            left = Node::Bin(op, Box::new(left), Box::new(self.term()?));
        }
    }

    /// term := factor (('*' | '/' | '//' | '%') factor)*
    fn term(&mut self) -> Result<Node, String> {
        let mut left = self.factor()?;
        loop {
            let op = if self.eat("*") {
                Op::Mul
            } else if self.eat("//") {
                Op::FloorDiv
            } else if self.eat("/") {
                Op::Div
            } else if self.eat("%") {
                Op::Mod
            } else {
                return Ok(left);
            };
            left = Node::Bin(op, Box::new(left), Box::new(self.factor()?));
        }
    }

    /// factor := ('-' | '+') factor | power
    fn factor(&mut self) -> Result<Node, String> {
        if self.eat("-") {
            return Ok(Node::Neg(Box::new(self.factor()?)));
        }
        if self.eat("+") {
            return Ok(Node::Pos(Box::new(self.factor()?)));
        }
        self.power()
    }

    /// power := atom ('**' factor)?  (right-associative, above unary minus on its left)
    fn power(&mut self) -> Result<Node, String> {
        let base = self.atom()?;
        if self.eat("**") {
            return Ok(Node::Bin(Op::Pow, Box::new(base), Box::new(self.factor()?)));
        }
        Ok(base)
    }

    fn atom(&mut self) -> Result<Node, String> {
        let Some(tok) = self.peek().cloned() else {
            return Err(format!(
                "{}: syntax error: unexpected end",
                py_str(&self.text)
            ));
        };
        self.pos += 1;
        match tok {
            Tok::Num(v) => Ok(Node::Const(v)),
            Tok::Str(s) => Ok(Node::Const(Value::String(s))),
            Tok::Sym("(") => {
                let inner = self.sum()?;
                if !self.eat(")") {
                    return Err(self.unsupported());
                }
                Ok(inner)
            }
            Tok::Name(n) if n == "True" || n == "False" => {
                Ok(Node::Const(Value::Boolean(n == "True")))
            }
            Tok::Name(n) => self.reference_or_call(n),
            _ => {
                self.pos -= 1;
                Err(self.unsupported())
            }
        }
    }

    /// A key path (`a.b[0].c`, `variant[red].x`) or, for a name followed by `(`, a call.
    fn reference_or_call(&mut self, first: String) -> Result<Node, String> {
        let mut path = first;
        loop {
            if self.eat(".") {
                match self.peek().cloned() {
                    Some(Tok::Name(n)) => {
                        self.pos += 1;
                        path = format!("{path}.{n}");
                    }
                    _ => return Err(self.unsupported()),
                }
            } else if self.eat("[") {
                let idx = match self.peek().cloned() {
                    Some(Tok::Num(Value::Integer(i))) if i >= 0 => i.to_string(),
                    Some(Tok::Name(n)) => n,
                    Some(Tok::Str(s)) => s,
                    _ => return Err(self.unsupported()),
                };
                self.pos += 1;
                if !self.eat("]") {
                    return Err(self.unsupported());
                }
                path = format!("{path}[{idx}]");
            } else if self.eat("(") {
                if !FUNCTIONS.contains(&path.as_str()) {
                    return Err(format!(
                        "{}: unknown function {} (allowed: {}, positional arguments only)",
                        py_str(&self.text),
                        py_str(&path),
                        FUNCTIONS.join(", ")
                    ));
                }
                let mut args = Vec::new();
                if !self.eat(")") {
                    loop {
                        args.push(self.sum()?);
                        if self.eat(")") {
                            break;
                        }
                        if !self.eat(",") {
                            return Err(self.unsupported());
                        }
                        if self.eat(")") {
                            break;
                        }
                    }
                }
                return Ok(Node::Call(path, args));
            } else {
                return Ok(Node::Ref(path));
            }
        }
    }
}

fn collect_refs(n: &Node, out: &mut Vec<String>) {
    match n {
        Node::Const(_) => {}
        Node::Ref(p) => out.push(p.clone()),
        Node::Neg(x) | Node::Pos(x) => collect_refs(x, out),
        Node::Bin(_, a, b) => {
            collect_refs(a, out);
            collect_refs(b, out);
        }
        Node::Call(_, args) => args.iter().for_each(|a| collect_refs(a, out)),
    }
}

/// Parse and check `text`; the error names the problem (`'open(1)': unknown function …`).
pub fn parse(text: &str) -> Result<Expr, String> {
    let toks = tokenize(text.trim()).map_err(|e| format!("{}: {e}", py_str(text)))?;
    let mut p = Parser {
        toks,
        pos: 0,
        text: text.to_string(),
    };
    let tree = p.sum()?;
    if p.pos < p.toks.len() {
        return Err(p.unsupported());
    }
    let mut refs = Vec::new();
    collect_refs(&tree, &mut refs);
    Ok(Expr {
        text: text.to_string(),
        refs,
        tree,
    })
}

impl Expr {
    /// The value of the expression; `lookup(path)` gives the value of a key path (its error is
    /// the reason).
    pub fn eval(
        &self,
        lookup: &mut dyn FnMut(&str) -> Result<Value, String>,
    ) -> Result<Value, String> {
        eval(&self.tree, lookup)
    }
}

fn is_num(v: &Value) -> bool {
    matches!(v, Value::Integer(_) | Value::Float(_))
}

fn as_f64(v: &Value) -> f64 {
    match v {
        Value::Integer(i) => *i as f64,
        Value::Float(f) => *f,
        _ => f64::NAN,
    }
}

fn eval(n: &Node, lookup: &mut dyn FnMut(&str) -> Result<Value, String>) -> Result<Value, String> {
    match n {
        Node::Const(v) => Ok(v.clone()),
        Node::Ref(p) => lookup(p),
        Node::Neg(x) | Node::Pos(x) => {
            let neg = matches!(n, Node::Neg(_));
            let v = eval(x, lookup)?;
            match (v, neg) {
                (Value::Integer(i), true) => {
                    i.checked_neg().map(Value::Integer).ok_or_else(overflow)
                }
                (Value::Float(f), true) => Ok(Value::Float(-f)),
                (v @ (Value::Integer(_) | Value::Float(_)), false) => Ok(v),
                (v, _) => Err(format!(
                    "unary {} of a non-number {}",
                    if neg { '-' } else { '+' },
                    py_repr(&v)
                )),
            }
        }
        Node::Bin(op, a, b) => {
            let a = eval(a, lookup)?;
            let b = eval(b, lookup)?;
            binary(*op, a, b)
        }
        Node::Call(f, args) => {
            let args: Vec<Value> = args
                .iter()
                .map(|a| eval(a, lookup))
                .collect::<Result<_, _>>()?;
            call(f, &args).map_err(|e| format!("{f}(): {e}"))
        }
    }
}

fn overflow() -> String {
    "integer result out of TOML's 64-bit range".into()
}

fn finite(r: f64) -> Result<Value, String> {
    if r.is_finite() {
        Ok(Value::Float(r))
    } else {
        Err(format!(
            "result {} is not a finite real number",
            py_float(r)
        ))
    }
}

/// Python's float `divmod`: (floor quotient, remainder with the divisor's sign).
fn float_divmod(a: f64, b: f64) -> (f64, f64) {
    let mut m = a % b;
    let mut div = (a - m) / b;
    if m != 0.0 {
        if (b < 0.0) != (m < 0.0) {
            m += b;
            div -= 1.0;
        }
    } else {
        m = 0.0_f64.copysign(b);
    }
    let q = if div != 0.0 {
        let f = div.floor();
        if div - f > 0.5 {
            f + 1.0
        } else {
            f
        }
    } else {
        0.0_f64.copysign(a / b)
    };
    (q, m)
}

fn binary(op: Op, a: Value, b: Value) -> Result<Value, String> {
    use Value::{Integer as I, String as S};
    if matches!(a, S(_)) || matches!(b, S(_)) {
        return match (op, a, b) {
            (Op::Add, S(x), S(y)) => Ok(S(x + &y)),
            (_, a, b) => Err(format!(
                "cannot combine {} and {} (strings only join with + to strings)",
                py_repr(&a),
                py_repr(&b)
            )),
        };
    }
    if !(is_num(&a) && is_num(&b)) {
        return Err(format!(
            "arithmetic on non-numbers {}, {}",
            py_repr(&a),
            py_repr(&b)
        ));
    }
    if op == Op::Pow && as_f64(&b).abs() > MAX_EXPONENT as f64 {
        return Err(format!(
            "exponent {} larger than {MAX_EXPONENT}",
            py_repr(&b)
        ));
    }
    let zero = "division by zero".to_string();
    if let (I(x), I(y)) = (&a, &b) {
        let (x, y) = (*x, *y);
        return match op {
            Op::Add => x.checked_add(y).map(I).ok_or_else(overflow),
            Op::Sub => x.checked_sub(y).map(I).ok_or_else(overflow),
            Op::Mul => x.checked_mul(y).map(I).ok_or_else(overflow),
            Op::Div if y == 0 => Err(zero),
            Op::Div => finite(x as f64 / y as f64),
            Op::FloorDiv | Op::Mod if y == 0 => Err(zero),
            Op::FloorDiv => x
                .checked_div_euclid(y)
                .map(|_| {
                    let q = x.wrapping_div(y);
                    I(if (x % y != 0) && ((x < 0) != (y < 0)) {
                        q - 1
                    } else {
                        q
                    })
                })
                .ok_or_else(overflow),
            Op::Mod => Ok(I({
                let r = x.wrapping_rem(y);
                if r != 0 && ((r < 0) != (y < 0)) {
                    r + y
                } else {
                    r
                }
            })),
            Op::Pow if y >= 0 => x.checked_pow(y as u32).map(I).ok_or_else(overflow),
            Op::Pow if x == 0 => Err(zero),
            Op::Pow => finite((x as f64).powf(y as f64)),
        };
    }
    let (x, y) = (as_f64(&a), as_f64(&b));
    match op {
        Op::Add => finite(x + y),
        Op::Sub => finite(x - y),
        Op::Mul => finite(x * y),
        Op::Div | Op::FloorDiv | Op::Mod if y == 0.0 => Err(zero),
        Op::Div => finite(x / y),
        Op::FloorDiv => finite(float_divmod(x, y).0),
        Op::Mod => finite(float_divmod(x, y).1),
        Op::Pow if x == 0.0 && y < 0.0 => Err(zero),
        Op::Pow if x < 0.0 && y.fract() != 0.0 => Err(format!(
            "result of {} ** {} is not a finite real number",
            py_float(x),
            py_float(y)
        )),
        Op::Pow => finite(x.powf(y)),
    }
}

/// Python's `round(x, n)` of a float: the nearest float to the decimal rounded half to even.
fn round_float(x: f64, n: i64) -> Result<f64, String> {
    if !x.is_finite() {
        return Ok(x);
    }
    if n >= 0 {
        let n = n.min(400) as usize;
        // Rust formats the exact binary value rounded half to even, as Python's dtoa does.
        return format!("{x:.n$}")
            .parse()
            .map_err(|_| "cannot round".into());
    }
    let scale = 10f64.powi((-n).min(400) as i32);
    Ok((x / scale).round_ties_even() * scale)
}

fn int_of_float(f: f64) -> Result<Value, String> {
    if !f.is_finite() {
        return Err(format!("cannot convert float {} to integer", py_float(f)));
    }
    let t = f.trunc();
    if t < i64::MIN as f64 || t >= i64::MAX as f64 {
        return Err(overflow());
    }
    Ok(Value::Integer(t as i64))
}

fn compare(a: &Value, b: &Value) -> Result<std::cmp::Ordering, String> {
    match (a, b) {
        (Value::String(x), Value::String(y)) => Ok(x.cmp(y)),
        (Value::Integer(x), Value::Integer(y)) => Ok(x.cmp(y)),
        _ if is_num(a) && is_num(b) => as_f64(a)
            .partial_cmp(&as_f64(b))
            .ok_or_else(|| "cannot compare NaN".to_string()),
        _ => Err(format!("cannot compare {} and {}", py_repr(a), py_repr(b))),
    }
}

fn call(f: &str, args: &[Value]) -> Result<Value, String> {
    use Value::{Float as F, Integer as I, String as S};
    let one = || -> Result<&Value, String> {
        match args {
            [x] => Ok(x),
            _ => Err(format!("takes exactly one argument ({} given)", args.len())),
        }
    };
    match f {
        "min" | "max" => {
            if args.len() < 2 {
                return Err(format!("expected at least 2 arguments, got {}", args.len()));
            }
            let mut best = &args[0];
            for x in &args[1..] {
                let ord = compare(x, best)?;
                let better = if f == "min" { ord.is_lt() } else { ord.is_gt() };
                if better {
                    best = x;
                }
            }
            Ok(best.clone())
        }
        "abs" => match one()? {
            I(i) => i.checked_abs().map(I).ok_or_else(overflow),
            F(x) => Ok(F(x.abs())),
            v => Err(format!("bad operand type: {}", py_repr(v))),
        },
        "round" => match args {
            [F(x)] => int_of_float(x.round_ties_even()),
            [I(i)] => Ok(I(*i)),
            [F(x), I(n)] => round_float(*x, *n).map(F),
            [I(i), I(n)] if *n >= 0 => Ok(I(*i)),
            [I(i), I(n)] => {
                let scale = 10i64.checked_pow((-*n) as u32).ok_or_else(overflow)?;
                let q = i.div_euclid(scale);
                let r = i.rem_euclid(scale);
                let up = 2 * r > scale || (2 * r == scale && q % 2 != 0);
                Ok(I((q + i64::from(up)) * scale))
            }
            _ => Err(format!(
                "takes a number and an optional integer, got {}",
                args.iter().map(py_repr).collect::<Vec<_>>().join(", ")
            )),
        },
        "int" => match one()? {
            I(i) => Ok(I(*i)),
            F(x) => int_of_float(*x),
            Value::Boolean(b) => Ok(I(i64::from(*b))),
            S(s) => s
                .trim()
                .replace('_', "")
                .parse::<i64>()
                .map(I)
                .map_err(|_| format!("invalid literal for int() with base 10: {}", py_str(s))),
            v => Err(format!("cannot convert {}", py_repr(v))),
        },
        "float" => match one()? {
            I(i) => Ok(F(*i as f64)),
            F(x) => Ok(F(*x)),
            Value::Boolean(b) => Ok(F(f64::from(u8::from(*b)))),
            S(s) => s
                .trim()
                .parse::<f64>()
                .map(F)
                .map_err(|_| format!("could not convert string to float: {}", py_str(s))),
            v => Err(format!("cannot convert {}", py_repr(v))),
        },
        "str" => Ok(S(match one()? {
            S(s) => s.clone(),
            v => py_repr(v),
        })),
        _ => Err("unknown function".into()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use toml::Value::{Float as F, Integer as I, String as S};

    fn ev(text: &str) -> Result<Value, String> {
        let mut look = |p: &str| match p {
            "queue.min_th" => Ok(I(30)),
            "workload[0].rate" => Ok(F(200.0)),
            "variant[red].queue.limit" => Ok(I(480)),
            "var.load" => Ok(F(0.9)),
            _ => Err(format!("no key {p}")),
        };
        parse(text)?.eval(&mut look)
    }

    #[test]
    fn arithmetic_as_python() {
        assert_eq!(ev("3 * queue.min_th"), Ok(I(90)));
        assert_eq!(ev("(queue.min_th + 2) ** 2 - 7 // 2 % 3"), Ok(I(1024)));
        assert_eq!(ev("workload[0].rate / 8"), Ok(F(25.0)));
        assert_eq!(ev("7 / 2"), Ok(F(3.5)));
        assert_eq!(ev("-7 // 2"), Ok(I(-4)));
        assert_eq!(ev("-7 % 3"), Ok(I(2)));
        assert_eq!(ev("7 % -3"), Ok(I(-2)));
        assert_eq!(ev("-7.5 // 2"), Ok(F(-4.0)));
        assert_eq!(ev("-7.5 % 2"), Ok(F(0.5)));
        assert_eq!(ev("-2 ** 2"), Ok(I(-4)));
        assert_eq!(ev("2 ** -1"), Ok(F(0.5)));
        assert_eq!(ev("2 ** 3 ** 2"), Ok(I(512)));
        assert_eq!(
            ev("variant[red].queue.limit - min(1, -abs(-4))"),
            Ok(I(484))
        );
        assert_eq!(ev("max(4 * queue.min_th, 120)"), Ok(I(120)));
        assert_eq!(ev("min(1, 1.0)"), Ok(I(1))); // the first of equals, as Python
        assert_eq!(ev("str(int(90 // 3)) + 's'"), Ok(S("30s".into())));
        assert_eq!(ev("str(2.5 * 2) + \"ms\""), Ok(S("5.0ms".into())));
        assert_eq!(ev("1_000 + 1e3"), Ok(F(2000.0)));
        // Python: 0.1 * 3 == 0.30000000000000004
        assert_eq!(ev("0.1 * 3"), Ok(F(0.30000000000000004)));
    }

    #[test]
    fn rounding_as_python() {
        assert_eq!(ev("round(2.675, 1)"), Ok(F(2.7)));
        assert_eq!(ev("round(2.675, 2)"), Ok(F(2.67))); // 2.675 is 2.67499999… in binary
        assert_eq!(ev("round(0.125, 2)"), Ok(F(0.12))); // an exact tie: to even
        assert_eq!(ev("round(2.5)"), Ok(I(2)));
        assert_eq!(ev("round(3.5)"), Ok(I(4)));
        assert_eq!(ev("round(1250, -2)"), Ok(I(1200)));
        assert_eq!(ev("round(1350, -2)"), Ok(I(1400)));
        // The shipped studies' users: Python round(3012 * 0.9 / 98) == 28.
        assert_eq!(ev("round(3012 * var.load / 98)"), Ok(I(28)));
        assert_eq!(ev("135.0 * var.load"), Ok(F(121.5)));
        assert_eq!(ev("int(-2.7)"), Ok(I(-2)));
        assert_eq!(ev("int('12')"), Ok(I(12)));
        assert_eq!(ev("float('1.5')"), Ok(F(1.5)));
    }

    #[test]
    fn refusals() {
        for bad in [
            "__import__('os')",
            "(lambda: 1)()",
            "[1, 2]",
            "x if y else z",
            "queue.min_th.__class__()",
            "1 +",
            "a = 1",
        ] {
            assert!(parse(bad).is_err(), "{bad}");
        }
        assert_eq!(
            parse("open(1)").unwrap_err(),
            "'open(1)': unknown function 'open' (allowed: abs, float, int, max, min, round, str, positional arguments only)"
        );
        assert_eq!(
            ev("1 / (queue.min_th - 30)").unwrap_err(),
            "division by zero"
        );
        assert_eq!(
            ev("10 ** 1000").unwrap_err(),
            "exponent 1000 larger than 64"
        );
        assert_eq!(
            ev("'a' * 3").unwrap_err(),
            "cannot combine 'a' and 3 (strings only join with + to strings)"
        );
        assert_eq!(ev("-'a'").unwrap_err(), "unary - of a non-number 'a'");
        assert_eq!(
            ev("True + 1").unwrap_err(),
            "arithmetic on non-numbers True, 1"
        );
        assert_eq!(ev("nope * 2").unwrap_err(), "no key nope");
        assert_eq!(
            ev("1e308 * 10").unwrap_err(),
            "result inf is not a finite real number"
        );
        assert_eq!(
            parse("3 * variant[red].queue.min_th + var.x").unwrap().refs,
            ["variant[red].queue.min_th", "var.x"]
        );
    }
}
