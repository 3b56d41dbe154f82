import { defineConfig } from "vitest/config";
import react from "@vitejs/plugin-react";

// The studio ships its assets inside the binary (tauri.conf.json `frontendDist`), so the build
// must not reference anything off-origin: no CDN fonts, no remote scripts.
export default defineConfig({
  plugins: [react()],
  clearScreen: false,
  build: {
    outDir: "dist",
    emptyOutDir: true,
    target: "es2022",
  },
  test: {
    environment: "node",
    include: ["src/**/*.test.ts"],
  },
});
