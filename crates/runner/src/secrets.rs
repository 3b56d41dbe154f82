//! `${secret:NAME}`: the value comes from the environment (`NAME`) or, when it is not set
//! there, from the OS keyring (the freedesktop Secret Service: GNOME Keyring, KWallet), service
//! `mend`, account `NAME`. Looked up at the step; never written anywhere by Mend.

/// The keyring's service name for Mend's secrets.
pub const SERVICE: &str = "mend";

/// The secret's value: the environment first, then the keyring. `None` when neither has it
/// (or the keyring cannot be reached: no session bus, locked, no Secret Service running).
pub fn lookup(name: &str) -> Option<String> {
    if let Some(v) = std::env::var(name).ok().filter(|v| !v.is_empty()) {
        return Some(v);
    }
    if !session_bus() {
        return None;
    }
    keyring::Entry::new(SERVICE, name)
        .ok()?
        .get_password()
        .ok()
        .filter(|v| !v.is_empty())
}

/// Store a secret in the keyring (what `mend secret set NAME` does).
pub fn store(name: &str, value: &str) -> Result<(), String> {
    if !session_bus() {
        return Err(no_bus());
    }
    keyring::Entry::new(SERVICE, name)
        .and_then(|e| e.set_password(value))
        .map_err(|e| format!("the keyring refused to store '{name}': {e}"))
}

/// Remove a secret from the keyring; `Ok(false)` when it was not there.
pub fn forget(name: &str) -> Result<bool, String> {
    if !session_bus() {
        return Err(no_bus());
    }
    match keyring::Entry::new(SERVICE, name).and_then(|e| e.delete_credential()) {
        Ok(()) => Ok(true),
        Err(keyring::Error::NoEntry) => Ok(false),
        Err(e) => Err(format!("the keyring refused to delete '{name}': {e}")),
    }
}

/// Only a running session bus is asked: without one, libdbus would try to autolaunch a bus
/// on the X display, which a run must never do behind the operator's back.
fn session_bus() -> bool {
    std::env::var_os("DBUS_SESSION_BUS_ADDRESS").is_some_and(|a| !a.is_empty())
}

fn no_bus() -> String {
    "no session D-Bus (DBUS_SESSION_BUS_ADDRESS is not set), so no keyring to use; log in to a \
     desktop session, or export the secret as an environment variable instead"
        .into()
}
