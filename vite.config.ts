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
  build: { assetsInlineLimit: 0 },
  plugins: [reactRouter()],
});
