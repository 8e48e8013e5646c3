import { modPow } from "./modular.ts";
import { fromBase64url, toBase64url } from "./verification-token.ts";

/**
 * A one-review token: the right of one account to review one manager once, as a partially blind RSA signature
 * (RSAPBSSA-SHA384-PSS-Deterministic, draft-irtf-cfrg-partially-blind-rsa). The public metadata ("info") names the
 * manager and the period of the signing key; the message is a 32-byte random nonce the browser chose, which the
 * server signs without seeing it. The account gets the token while signed in; the review spends it in a request
 * without a session (docs/decisions/0031-one-review-tokens.md). Client-safe: the browser and the server share it.
 */

export type ReviewToken = { managerId: number; period: string; nonce: string; signature: string };

const version = "r1";
const separator = "~";

/** The public metadata a token is signed under: the manager and the key's period, in the clear. */
export function reviewTokenInfo(managerId: number, period: string): Uint8Array {
  return new TextEncoder().encode(`candor-one-review-v1|manager:${managerId}|${period}`);
}

/** The signed message: the browser's nonce, and nothing else (what the server never sees before the review). */
export function reviewTokenMessage(nonce: string): Uint8Array {
  return new TextEncoder().encode(`candor-one-review-v1|${nonce}`);
}

export function encodeReviewToken(token: ReviewToken): string {
  return [version, String(token.managerId), token.period, token.nonce, token.signature].join(separator);
}

const base64url = /^[A-Za-z0-9_-]+$/;

/** The parts of a token string, or undefined when it is not one. */
export function decodeReviewToken(value: string): ReviewToken | undefined {
  const parts = value.split(separator);
  if (parts.length !== 5 || parts[0] !== version) return undefined;
  const [, manager, period, nonce, signature] = parts as [string, string, string, string, string];
  if (!/^[1-9]\d{0,15}$/.test(manager) || !/^\d{4}-Q[1-4]$/.test(period)) return undefined;
  if (!base64url.test(nonce) || nonce.length !== 43 || !base64url.test(signature) || signature.length > 1100) {
    return undefined;
  }
  return { managerId: Number(manager), period, nonce, signature };
}

/** The message the PSS signature covers: "msg" || len(info) as 4 bytes || info || msg (the draft's msg_prime). */
export function messagePrime(info: Uint8Array, message: Uint8Array): Uint8Array {
  const length = new Uint8Array(4);
  new DataView(length.buffer).setUint32(0, info.length);
  return concat([new TextEncoder().encode("msg"), length, info, message]);
}

function concat(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((sum, part) => sum + part.length, 0));
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}

export function bytesToBigint(bytes: Uint8Array): bigint {
  let hex = "";
  for (const byte of bytes) hex += byte.toString(16).padStart(2, "0");
  return hex ? BigInt(`0x${hex}`) : 0n;
}

export function bigintToBytes(value: bigint, length: number): Uint8Array {
  const hex = value.toString(16).padStart(length * 2, "0");
  if (hex.length > length * 2) throw new Error("integer too large");
  return Uint8Array.from({ length }, (_, index) => Number.parseInt(hex.slice(index * 2, index * 2 + 2), 16));
}

/**
 * DerivePublicKey of the draft: the exponent e' that the metadata `info` selects for the modulus `n` (HKDF-SHA384
 * over "key" || info || 0x00, salted with n, info "PBRSA"; top two bits cleared, bottom bit set). WebCrypto, so the
 * browser checks its signature with the very exponent the server signed with.
 */
export async function derivePublicExponent(modulus: Uint8Array, info: Uint8Array): Promise<bigint> {
  const lambdaLength = modulus.length / 2;
  const input = concat([new TextEncoder().encode("key"), info, new Uint8Array([0])]);
  const key = await crypto.subtle.importKey("raw", input as BufferSource, "HKDF", false, ["deriveBits"]);
  const bits = await crypto.subtle.deriveBits(
    { name: "HKDF", hash: "SHA-384", salt: modulus as BufferSource, info: new TextEncoder().encode("PBRSA") },
    key,
    (lambdaLength + 16) * 8,
  );
  const expanded = new Uint8Array(bits);
  expanded[0]! &= 0x3f;
  expanded[lambdaLength - 1]! |= 0x01;
  return bytesToBigint(expanded.subarray(0, lambdaLength));
}

/**
 * The draft's Finalize, up to the encoding: s = z · r⁻¹ mod n, accepted only when the blind signature z is the
 * e'-th root of what was sent (z^e' = blinded mod n, so s^e' is the encoded message). A server signing with another
 * key or other metadata (to recognise the token later) is caught here, before the token is kept.
 */
export async function unblindPartially(options: {
  modulus: Uint8Array;
  info: Uint8Array;
  blinded: Uint8Array;
  inverse: Uint8Array;
  blindSignature: Uint8Array;
}): Promise<Uint8Array> {
  const n = bytesToBigint(options.modulus);
  const z = bytesToBigint(options.blindSignature);
  if (z >= n) throw new Error("invalid signature");
  const ePrime = await derivePublicExponent(options.modulus, options.info);
  if (modPow(z, ePrime, n) !== bytesToBigint(options.blinded)) throw new Error("invalid signature");
  return bigintToBytes((z * bytesToBigint(options.inverse)) % n, options.modulus.length);
}

/** The browser's last step: the token of `managerId` and `period` from the server's blind signature. */
export async function finalizeReviewToken(options: {
  publicKey: { n: string; e: string };
  managerId: number;
  period: string;
  nonce: string;
  blinded: Uint8Array;
  inverse: Uint8Array;
  blindSignature: string;
}): Promise<string> {
  const signature = await unblindPartially({
    modulus: fromBase64url(options.publicKey.n),
    info: reviewTokenInfo(options.managerId, options.period),
    blinded: options.blinded,
    inverse: options.inverse,
    blindSignature: fromBase64url(options.blindSignature),
  });
  return encodeReviewToken({
    managerId: options.managerId,
    period: options.period,
    nonce: options.nonce,
    signature: toBase64url(signature),
  });
}

export { toBase64url };
