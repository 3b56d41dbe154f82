//! With a session bus address that points nowhere, `AtSpi::connect()` gives up quickly.
use mend_structure::AtSpi;
use std::time::{Duration, Instant};

#[test]
fn connect_without_a_bus_is_quick() {
    // This binary has only this test, so changing the environment races nothing.
    std::env::set_var(
        "DBUS_SESSION_BUS_ADDRESS",
        "unix:path=/nonexistent/mend-structure-test/bus",
    );
    std::env::remove_var("AT_SPI_BUS_ADDRESS");
    let t = Instant::now();
    let r = AtSpi::connect();
    let took = t.elapsed();
    assert!(took < Duration::from_secs(2), "connect took {took:?}");
    match r {
        Ok(None) => {}
        Ok(Some(_)) => panic!("connected to a bus that does not exist"),
        Err(e) => eprintln!("connect failed quickly: {e}"),
    }
    // Same through the explicit address, and with an unparsable one.
    let t = Instant::now();
    assert!(matches!(
        AtSpi::connect_to("unix:path=/nonexistent/x", Duration::from_millis(500)),
        Ok(None)
    ));
    assert!(matches!(
        AtSpi::connect_to("not an address", Duration::from_millis(500)),
        Ok(None)
    ));
    assert!(t.elapsed() < Duration::from_secs(2));
}
