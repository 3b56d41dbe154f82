// Release builds on Windows would otherwise open a console next to the window.
#![cfg_attr(not(debug_assertions), windows_subsystem = "windows")]

fn main() {
    mend_app::limit_ocr_threads();
    if let Err(error) = mend_studio::run() {
        eprintln!("mend-studio: {error}");
        std::process::exit(1);
    }
}
