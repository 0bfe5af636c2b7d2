//! DelayBox.
