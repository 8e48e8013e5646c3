import { createHmac } from "node:crypto";
import { createContext } from "react-router";

/**
 * Who is asking, as far as abuse control needs to know: a keyed hash of the client IP. The IP itself never
 * reaches app code, logs or the database (docs/data-model.md, what is never stored).
 */
export type Client = { ipKey: string };

export const clientContext = createContext<Client>({ ipKey: "unknown" });

export function hashIdentifier(secret: string, purpose: string, value: string): string {
  return createHmac("sha256", secret).update(`${purpose}\u0000${value}`).digest("base64url").slice(0, 32);
}

/** The rate-limit key of an account, from its e-mail address as typed (case and surrounding spaces ignored). */
export function accountKey(secret: string, email: string): string {
  return hashIdentifier(secret, "email", email.trim().toLowerCase());
}
