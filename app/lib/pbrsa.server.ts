import {
  constants,
  createPrivateKey,
  createPublicKey,
  generatePrime,
  type KeyObject,
  privateDecrypt,
  publicEncrypt,
  verify,
} from "node:crypto";
import { modInverse } from "./modular.ts";
import { pssSaltLength } from "./blind-rsa.server.ts";
import { bigintToBytes, bytesToBigint, derivePublicExponent, messagePrime } from "./review-token.ts";

/**
 * Partially blind RSA signatures, the signer's half (draft-irtf-cfrg-partially-blind-rsa, RSAPBSSA-SHA384-PSS-
 * Deterministic), on node:crypto: the metadata `info` derives a public exponent e' for the one modulus, the signer
 * inverts it modulo φ(n) (bigint arithmetic on public values and φ, never an exponentiation with a secret), and the
 * signature itself is OpenSSL's raw RSA with the derived key (CRT, with its blinding against timing). Keys are made
 * of safe primes, as the draft requires, so that every e' is invertible. Verification is an ordinary RSASSA-PSS
 * check with (n, e') over the draft's msg_prime.
 */

export const pbrsaModulusBits = 2048;
const modulusBytes = pbrsaModulusBits / 8;

/** A random safe prime (p = 2p' + 1, p' prime) of `bits` bits, by OpenSSL. */
const safePrime = (bits: number) =>
  new Promise<bigint>((resolve, reject) =>
    generatePrime(bits, { safe: true, bigint: true }, (error, value) => (error ? reject(error) : resolve(value))),
  );

const b64 = (value: bigint) =>
  Buffer.from(bigintToBytes(value, Math.ceil(value.toString(16).length / 2))).toString("base64url");
const big = (value: string | undefined) => bytesToBigint(Buffer.from(value ?? "", "base64url"));

export type PbrsaPublicKey = { kty: "RSA"; n: string; e: string };

/** An RSA private key as a JSON Web Key, its CRT values (dp, dq, qi) derived from n, e, d, p and q. */
export function privateJwk(n: bigint, e: bigint, d: bigint, p: bigint, q: bigint) {
  return {
    kty: "RSA",
    n: b64(n),
    e: b64(e),
    d: b64(d),
    p: b64(p),
    q: b64(q),
    dp: b64(d % (p - 1n)),
    dq: b64(d % (q - 1n)),
    qi: b64(modInverse(q, p)),
  };
}

/** A fresh key of two 1024-bit safe primes (e = 65537): the private half as PKCS #8 DER, to be sealed. */
export async function generatePbrsaKey(): Promise<{ privateDer: Buffer; publicKey: PbrsaPublicKey }> {
  for (;;) {
    const [p, q] = await Promise.all([safePrime(pbrsaModulusBits / 2), safePrime(pbrsaModulusBits / 2)]);
    const n = p * q;
    if (p === q || n.toString(2).length !== pbrsaModulusBits) continue;
    const e = 65537n;
    const d = modInverse(e, (p - 1n) * (q - 1n));
    const key = createPrivateKey({ key: privateJwk(n, e, d, p, q), format: "jwk" });
    return {
      privateDer: key.export({ format: "der", type: "pkcs8" }),
      publicKey: { kty: "RSA", n: b64(n), e: b64(e) },
    };
  }
}

/** The key pair that `info` selects: (n, e') and its private half, as node:crypto keys. */
async function derivedKeys(
  privateKey: KeyObject,
  info: Uint8Array,
): Promise<{ privateKey: KeyObject; publicKey: KeyObject }> {
  const jwk = privateKey.export({ format: "jwk" });
  const [n, p, q] = [big(jwk.n), big(jwk.p), big(jwk.q)];
  const ePrime = await derivePublicExponent(bigintToBytes(n, modulusBytes), info);
  const dPrime = modInverse(ePrime, (p - 1n) * (q - 1n));
  const derived = createPrivateKey({ key: privateJwk(n, ePrime, dPrime, p, q), format: "jwk" });
  return { privateKey: derived, publicKey: createPublicKey(derived) };
}

/** The draft's BlindSign: s = m^d' mod n with the key `info` selects, checked (s^e' = m) before it leaves. */
export async function blindSignPartially(
  privateKey: KeyObject,
  blinded: Uint8Array,
  info: Uint8Array,
): Promise<Buffer> {
  if (blinded.length !== modulusBytes) throw new Error("unexpected input size");
  const jwk = privateKey.export({ format: "jwk" });
  if (bytesToBigint(blinded) >= big(jwk.n)) throw new Error("message representative out of range");
  const keys = await derivedKeys(privateKey, info);
  const signature = privateDecrypt({ key: keys.privateKey, padding: constants.RSA_NO_PADDING }, blinded);
  const check = publicEncrypt({ key: keys.publicKey, padding: constants.RSA_NO_PADDING }, signature);
  if (!check.equals(blinded)) throw new Error("signing failure");
  return signature;
}

/** The draft's Verify: RSASSA-PSS (SHA-384, 48-byte salt) with (n, e') over msg_prime. */
export async function verifyPartially(
  publicKey: PbrsaPublicKey,
  message: Uint8Array,
  info: Uint8Array,
  signature: Uint8Array,
): Promise<boolean> {
  try {
    const n = Buffer.from(publicKey.n, "base64url");
    const ePrime = await derivePublicExponent(n, info);
    const key = createPublicKey({ key: { kty: "RSA", n: publicKey.n, e: b64(ePrime) }, format: "jwk" });
    return verify(
      "sha384",
      messagePrime(info, message),
      { key, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: pssSaltLength },
      signature,
    );
  } catch {
    return false;
  }
}
