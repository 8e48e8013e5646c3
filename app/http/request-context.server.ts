import { createContext } from "react-router";

/** The per-request Content-Security-Policy nonce, set by server/app.ts, read by entry.server.tsx. */
export const cspNonceContext = createContext<string>("");

/**
 * Set by entry.server.tsx's handleError when a loader, action or middleware failed because the database could not
 * be reached: the page is then answered 503 with Retry-After instead of 500.
 */
export const databaseUnavailableContext = createContext<boolean>(false);

/**
 * Resolves once the request's answer is complete: its last byte handed to the connection, or the connection gone.
 * Set by server/app.ts; work that must not shape the answer (runInBackground) waits for it.
 */
export const answeredContext = createContext<Promise<void>>(Promise.resolve());
