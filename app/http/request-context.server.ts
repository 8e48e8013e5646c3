import { createContext } from "react-router";

/** The per-request Content-Security-Policy nonce, set by server/app.ts, read by entry.server.tsx. */
export const cspNonceContext = createContext<string>("");

/**
 * Set by entry.server.tsx's handleError when a loader, action or middleware failed because the database could not
 * be reached: the page is then answered 503 with Retry-After instead of 500.
 */
export const databaseUnavailableContext = createContext<boolean>(false);
