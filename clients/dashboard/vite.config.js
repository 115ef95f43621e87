// Vite builds index.html + src/ into dist/ (relative asset URLs, so it works at / or under any
// prefix). `npm run dev` proxies /v1 to a daemon at DUCTILE_URL (default http://127.0.0.1:8080).
import { defineConfig } from "vite";

export default defineConfig({
  base: "./",
  build: { outDir: "dist", assetsDir: "assets", chunkSizeWarningLimit: 1000, sourcemap: false },
  server: { proxy: { "/v1": process.env.DUCTILE_URL || "http://127.0.0.1:8080" } },
});
