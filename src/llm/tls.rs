//! The crypto provider behind every HTTPS connection docnav makes (rustls).
//!
//! rustls needs a process-wide crypto provider, and reqwest reads it each time a client is built
//! (for `http://` URLs too), panicking when there is none. docnav's is *ring*: it compiles from a
//! few C and assembly files with the C compiler, where rustls' default, aws-lc-rs, builds a whole
//! C library with cmake.

/// Installs *ring* as rustls' process-wide crypto provider, unless the process already has one (an
/// application embedding docnav may have installed its own; that one stays).
///
/// Call it before building any HTTP client. Safe to call any number of times, from any thread.
pub fn install_crypto_provider() {
    if rustls::crypto::CryptoProvider::get_default().is_none() {
        // Err: another thread installed one since the check; it serves as well.
        let _ = rustls::crypto::ring::default_provider().install_default();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rustls::crypto::CryptoProvider;

    #[test]
    fn https_clients_can_be_built_on_the_installed_provider() {
        install_crypto_provider();
        install_crypto_provider();
        let installed = CryptoProvider::get_default().expect("a provider is installed");
        let ring = rustls::crypto::ring::default_provider();
        let suites =
            |p: &CryptoProvider| -> Vec<_> { p.cipher_suites.iter().map(|s| s.suite()).collect() };
        assert_eq!(suites(installed), suites(&ring));
        assert!(suites(installed).contains(&rustls::CipherSuite::TLS13_AES_128_GCM_SHA256));

        // A TLS client configuration as reqwest makes one: the provider, TLS 1.2 and 1.3.
        let config = rustls::ClientConfig::builder_with_provider(installed.clone())
            .with_safe_default_protocol_versions()
            .expect("the provider supports TLS 1.2 and 1.3")
            .with_root_certificates(rustls::RootCertStore::empty())
            .with_no_client_auth();
        assert!(config.crypto_provider().cipher_suites.len() >= 3);

        // reqwest builds its TLS configuration (system roots, platform verifier) on it.
        reqwest::Client::builder()
            .build()
            .expect("reqwest builds a client on the installed provider");
    }
}
