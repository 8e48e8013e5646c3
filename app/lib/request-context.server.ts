import { createContext } from "react-router";

/** The per-request Content-Security-Policy nonce, set by server/app.ts, read by entry.server.tsx. */
export const cspNonceContext = createContext<string>("");
