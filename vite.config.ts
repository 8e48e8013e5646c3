import { reactRouter } from "@react-router/dev/vite";
import { defineConfig } from "vite";

export default defineConfig({
  // The server bundle starts at our own HTTP app (security headers, compression, health check),
  // which mounts the React Router handler: one module graph, one database connection.
  environments: {
    ssr: {
      build: {
        rollupOptions: { input: "./server/app.ts" },
      },
    },
  },
  // The build folder is not emptied: the previous build's files stay until the build after it
  // (scripts/keep-previous-build.ts), since pages that workers of the previous build render during a rolling
  // restart name its client files.
  build: { assetsInlineLimit: 0, emptyOutDir: false },
  plugins: [reactRouter()],
});
