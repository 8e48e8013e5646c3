// Development entry: `npm run dev`. Vite serves the app with hot reload; our server wraps it as in production.
import { createServer } from "vite";
import type * as AppExports from "./app.ts";
import { env } from "#app/lib/env.server.ts";
import { logger } from "#app/lib/logger.server.ts";
import { listenWithGracefulShutdown } from "./listen.ts";

const config = env();
const vite = await createServer({ server: { middlewareMode: true }, appType: "custom" });
type AppModule = typeof AppExports;
const load = () => vite.ssrLoadModule("./server/app.ts") as Promise<AppModule>;
await (await load()).start();

listenWithGracefulShutdown({
  handler: (req, res) => {
    vite.middlewares(req, res, async () => {
      try {
        const { createApp } = await load();
        const app = createApp({
          build: () => vite.ssrLoadModule("virtual:react-router/server-build") as never,
          production: false,
        });
        app(req as never, res as never);
      } catch (error) {
        vite.ssrFixStacktrace(error as Error);
        res.statusCode = 500;
        res.end(String((error as Error).stack));
      }
    });
  },
  host: config.HOST,
  port: config.PORT,
  timeoutMs: config.SHUTDOWN_TIMEOUT_MS,
  logger,
  onClose: async () => {
    await (await load()).stop();
    await vite.close();
  },
});
