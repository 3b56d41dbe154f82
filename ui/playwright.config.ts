import { defineConfig } from "@playwright/test";

// Browser tests of the studio UI against the mock backend (recorded runs), in Debian's
// Chromium: Playwright downloads no browser of its own. The preview server's port comes from
// MEND_UI_PORT (the test command picks a free one, so two runs on one machine do not collide).
const port = Number(process.env.MEND_UI_PORT ?? 4178);

export default defineConfig({
  testDir: "e2e",
  timeout: 60_000,
  workers: 1,
  reporter: [["list"]],
  use: {
    baseURL: `http://127.0.0.1:${port}`,
    viewport: { width: 1280, height: 860 },
    launchOptions: { executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium" },
  },
  webServer: {
    command: `npx vite preview --host 127.0.0.1 --port ${port} --strictPort`,
    url: `http://127.0.0.1:${port}`,
    reuseExistingServer: false,
    timeout: 60_000,
  },
});
