import { defineConfig } from "@playwright/test";

// Browser tests of the studio UI against the mock backend (recorded runs), in Debian's
// Chromium: Playwright downloads no browser of its own.
export default defineConfig({
  testDir: "e2e",
  timeout: 60_000,
  workers: 1,
  reporter: [["list"]],
  use: {
    baseURL: "http://127.0.0.1:4178",
    viewport: { width: 1280, height: 860 },
    launchOptions: { executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium" },
  },
  webServer: {
    command: "npx vite preview --host 127.0.0.1 --port 4178 --strictPort",
    url: "http://127.0.0.1:4178",
    reuseExistingServer: false,
    timeout: 60_000,
  },
});
