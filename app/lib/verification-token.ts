/**
 * A verification token: the proof "someone who read mail at this domain this quarter" that a browser spends with a
 * review (docs/decisions/0030-blind-signed-verification-tokens.md). It is a 32-byte random nonce chosen by the
 * browser, bound to the domain and quarter, and the server's RSA blind signature of that message, which the server
 * signed without ever seeing it. Client-safe: the browser builds messages and the server parses them with this code.
 */

export type VerificationToken = { domain: string; quarter: string; nonce: string; signature: string };

const version = "v1";
const separator = "~";

/** The signed message: what the server's key vouches for, and nothing else. */
export function tokenMessage(token: { domain: string; quarter: string; nonce: string }): Uint8Array {
  return new TextEncoder().encode(`candor-verified-${version}|${token.domain}|${token.quarter}|${token.nonce}`);
}

/** The token as one string (the form's hidden field, the API's `verification_token`, what the browser keeps). */
export function encodeToken(token: VerificationToken): string {
  return [version, token.domain, token.quarter, token.nonce, token.signature].join(separator);
}

const quarterPattern = /^\d{4}-Q[1-4]$/;
const base64url = /^[A-Za-z0-9_-]+$/;
const domainPattern = /^[a-z0-9.-]{1,253}$/;

/** The parts of a token string, or undefined when it is not one. */
export function decodeToken(value: string): VerificationToken | undefined {
  const parts = value.split(separator);
  if (parts.length !== 5 || parts[0] !== version) return undefined;
  const [, domain, quarter, nonce, signature] = parts as [string, string, string, string, string];
  if (!domainPattern.test(domain) || !quarterPattern.test(quarter)) return undefined;
  if (!base64url.test(nonce) || nonce.length !== 43 || !base64url.test(signature) || signature.length > 1100) {
    return undefined;
  }
  return { domain, quarter, nonce, signature };
}

/** The calendar quarter of a moment, in UTC: "2026-Q4". Keys, tokens and address hashes live one quarter. */
export function quarterOf(date: Date): string {
  return `${date.getUTCFullYear()}-Q${Math.floor(date.getUTCMonth() / 3) + 1}`;
}

export function toBase64url(bytes: Uint8Array): string {
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
}

export function fromBase64url(value: string): Uint8Array {
  const binary = atob(value.replaceAll("-", "+").replaceAll("_", "/"));
  return Uint8Array.from(binary, (char) => char.charCodeAt(0));
}

/** A domain's public key (its JSON Web Key) as the WebCrypto key the blind-signature library works with. */
export function importPublicKey(jwk: { n?: string | undefined; e?: string | undefined }): Promise<CryptoKey> {
  return crypto.subtle.importKey(
    "jwk",
    { kty: "RSA", n: jwk.n, e: jwk.e, ext: true },
    { name: "RSA-PSS", hash: "SHA-384" },
    true,
    ["verify"],
  );
}
