//! Rules only: no I/O, no threads, no clocks.

/// A typed error's text is what the protocol shows: `String` callers take it with `?`.
macro_rules! error_text {
    (derived: $($error:ty),+) => {$(
        impl From<$error> for String {
            fn from(e: $error) -> String {
                e.to_string()
            }
        }
    )+};
    ($($error:ty),+) => {$(
        impl std::error::Error for $error {}
        $crate::games::error_text!(derived: $error);
    )+};
}
pub(crate) use error_text;

pub mod end;
pub mod record;
pub mod rules;
pub mod view;
