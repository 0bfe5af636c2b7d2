//! Ordinary least squares of offered load on the parameter, with an intercept: the intercept
//! carries the load that does not scale with x (other workloads, cross traffic).

/// A fitted line y = slope·x + intercept and how well it fits.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Fit {
    /// Units of y per unit of x (bit/s per connection/s, user or flow).
    pub slope: f64,
    /// y at x = 0, bit/s.
    pub intercept: f64,
    /// Coefficient of determination (NaN when every y is equal).
    pub r2: f64,
    /// Largest |y − ŷ| / y over the points with y > 0 (NaN without one).
    pub max_rel_residual: f64,
}

/// The least-squares line through `(x[i], y[i])`; None with fewer than two distinct x.
pub fn fit_line(x: &[f64], y: &[f64]) -> Option<Fit> {
    let n = x.len();
    let distinct = x.iter().any(|a| *a != x[0]);
    if n < 2 || y.len() != n || !distinct {
        return None;
    }
    let nf = n as f64;
    let mx = x.iter().sum::<f64>() / nf;
    let my = y.iter().sum::<f64>() / nf;
    let sxx: f64 = x.iter().map(|a| (a - mx) * (a - mx)).sum();
    let sxy: f64 = x.iter().zip(y).map(|(a, b)| (a - mx) * (b - my)).sum();
    let slope = sxy / sxx;
    let intercept = my - slope * mx;
    let fitted = |a: f64| slope * a + intercept;
    let ss_res: f64 = x.iter().zip(y).map(|(a, b)| (b - fitted(*a)).powi(2)).sum();
    let ss_tot: f64 = y.iter().map(|b| (b - my).powi(2)).sum();
    let r2 = if ss_tot > 0.0 {
        1.0 - ss_res / ss_tot
    } else {
        f64::NAN
    };
    let max_rel_residual = x
        .iter()
        .zip(y)
        .filter(|(_, b)| **b > 0.0)
        .map(|(a, b)| (b - fitted(*a)).abs() / b)
        .fold(f64::NAN, f64::max);
    Some(Fit {
        slope,
        intercept,
        r2,
        max_rel_residual,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() <= 1e-12 * b.abs().max(1.0)
    }

    #[test]
    fn three_points_by_hand() {
        // x̄ = 2, ȳ = 4; Sxy = (−1)(−2) + 0·0.1 + 1·1.9 = 3.9, Sxx = 2: slope 1.95, intercept
        // 4 − 1.95·2 = 0.1. Fitted 2.05, 4.0, 5.95: residuals −0.05, +0.1, −0.05, SSres =
        // 0.015; SStot = 4 + 0.01 + 3.61 = 7.62; largest relative residual 0.05 / 2 = 0.025.
        let f = fit_line(&[1.0, 2.0, 3.0], &[2.0, 4.1, 5.9]).unwrap();
        assert!(close(f.slope, 1.95), "{f:?}");
        assert!(close(f.intercept, 0.1), "{f:?}");
        assert!(close(f.r2, 1.0 - 0.015 / 7.62), "{f:?}");
        assert!(close(f.max_rel_residual, 0.025), "{f:?}");
    }

    #[test]
    fn a_line_through_the_origin_and_degenerate_inputs() {
        // 20,880 bit per connection (python/tests/test_calibrate.py's SMALL, by hand).
        let f = fit_line(&[100.0, 200.0, 400.0], &[2.088e6, 4.176e6, 8.352e6]).unwrap();
        assert!(close(f.slope, 20_880.0) && f.intercept.abs() < 1e-6);
        assert!(close(f.r2, 1.0));
        assert!(fit_line(&[5.0, 5.0], &[1.0, 2.0]).is_none());
        assert!(fit_line(&[5.0], &[1.0]).is_none());
        let flat = fit_line(&[1.0, 2.0], &[3.0, 3.0]).unwrap();
        assert!(flat.r2.is_nan() && flat.slope == 0.0);
    }
}
