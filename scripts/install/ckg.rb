# Homebrew formula for ckg's release executables. This is the template: the @...@ values are
# filled from a release's dist/<platform>/ckg.sha256 by scripts/install/release-files.ts, which
# writes dist/ckg.rb for a tap:
#   bun scripts/install/release-files.ts --base-url https://host/ckg
#   brew install --formula ./ckg.rb          (or from a tap: brew install <you>/<tap>/ckg)
class Ckg < Formula
  desc "Crypto knowledge graph service: SPARQL, search, SQL time-series, signals, x402"
  homepage "@HOMEPAGE@"
  version "@VERSION@"
  license "MIT"

  on_macos do
    on_arm do
      url "@BASE_URL@/@VERSION@/darwin-arm64/ckg"
      sha256 "@SHA256_DARWIN_ARM64@"
    end
    on_intel do
      url "@BASE_URL@/@VERSION@/darwin-x64/ckg"
      sha256 "@SHA256_DARWIN_X64@"
    end
  end

  on_linux do
    on_arm do
      url "@BASE_URL@/@VERSION@/linux-arm64/ckg"
      sha256 "@SHA256_LINUX_ARM64@"
    end
    on_intel do
      url "@BASE_URL@/@VERSION@/linux-x64/ckg"
      sha256 "@SHA256_LINUX_X64@"
    end
  end

  def install
    # The download is the executable itself (no archive), staged as a plain file.
    chmod 0755, "ckg"
    bin.install "ckg"
  end

  # The service's settings file, kept across upgrades (Homebrew leaves an existing etc/ file alone).
  def post_install
    (var/"ckg").mkpath
    config = etc/"ckg/ckg.toml"
    return if config.exist?

    config.dirname.mkpath
    config.write <<~TOML
      # ckg's settings for `brew services`, by their lower-case names (docs/configuration.md):
      # port = 8402
      # ingest_cron = "0 5 * * *"
    TOML
  end

  # `brew services start ckg`: serves 127.0.0.1:8402 on $(brew --prefix)/var/ckg, with the settings
  # of $(brew --prefix)/etc/ckg/ckg.toml.
  service do
    run [opt_bin/"ckg", "serve"]
    environment_variables CKG_DATA_DIR: var/"ckg", CKG_CONFIG: etc/"ckg/ckg.toml"
    working_dir var/"ckg"
    keep_alive crashed: true
    log_path var/"log/ckg.log"
    error_log_path var/"log/ckg.log"
  end

  test do
    assert_match "ckg #{version}", shell_output("#{bin}/ckg --version")
  end
end
