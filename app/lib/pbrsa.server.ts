import {
  constants,
  createDiffieHellman,
  createPrivateKey,
  createPublicKey,
  generatePrime,
  type KeyObject,
  privateDecrypt,
  publicEncrypt,
  randomBytes,
  verify,
} from "node:crypto";
import { modInverse } from "./modular.ts";
import { pssSaltLength } from "./blind-rsa.server.ts";
import { bigintToBytes, bytesToBigint, derivePublicExponent, messagePrime } from "./review-token.ts";

/**
 * Partially blind RSA signatures, the signer's half (draft-irtf-cfrg-partially-blind-rsa, RSAPBSSA-SHA384-PSS-
 * Deterministic), on node:crypto: the metadata `info` derives a public exponent e' for the one modulus, the signer
 * inverts it modulo φ(n), p − 1 and q − 1 with a blinded inversion (Euclid's steps run only on public e' and a blinded
 * residue, never on a secret), and the signature itself is OpenSSL's raw RSA with the derived key (CRT, with its
 * blinding against timing). Keys are made of safe primes, as the draft requires, so that every e' is invertible.
 * Verification is an ordinary RSASSA-PSS check with (n, e') over the draft's msg_prime.
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

/** A uniformly random integer in [1, bound). */
function randomBelow(bound: bigint): bigint {
  const bytes = Math.ceil(bound.toString(16).length / 2) + 8; // 64 more bits than the bound: no measurable bias
  return (bytesToBigint(randomBytes(bytes)) % (bound - 1n)) + 1n;
}

function gcd(a: bigint, b: bigint): bigint {
  let [x, y] = [a, b];
  while (y !== 0n) [x, y] = [y, x % y];
  return x;
}

/**
 * x = a⁻¹ mod m for a public a (an RSA exponent) and a secret m (φ(n), p − 1, q − 1), gcd(a, m) = 1. Euclid's steps
 * depend on the numbers it runs on, and their time can be measured, so it never runs on m: a·x = 1 + k·m with
 * k = −m⁻¹ mod a, and m⁻¹ mod a = r · (m·r mod a)⁻¹ for a random unit r mod a. Euclid sees only a (public) and m·r
 * mod a, which is uniform over the units mod a whatever m is. What is left is multiplication and exact division of
 * numbers of fixed sizes.
 */
export function blindedInverse(a: bigint, m: bigint): bigint {
  for (;;) {
    const r = randomBelow(a);
    if (gcd(r, a) !== 1n) continue; // r and a are not secret
    const blinded = ((m % a) * r) % a;
    const unblinder = modInverse(blinded, a);
    if ((unblinder * blinded) % a !== 1n) throw new Error("the exponent is not invertible");
    const k = (a - ((unblinder * r) % a)) % a;
    return (1n + k * m) / a;
  }
}

/**
 * a⁻¹ mod p for a prime p, both secret: a^(p−2) mod p (Fermat) by OpenSSL, whose Diffie-Hellman key computation is a
 * constant-time modular exponentiation (the private value as exponent, BN_FLG_CONSTTIME).
 */
export function inverseModPrime(a: bigint, p: bigint): bigint {
  const bytes = (value: bigint) => Buffer.from(bigintToBytes(value, Math.ceil(p.toString(16).length / 2)));
  const exponentiation = createDiffieHellman(bytes(p), bytes(a % p));
  exponentiation.setPrivateKey(bytes(p - 2n));
  return bytesToBigint(exponentiation.generateKeys());
}

/**
 * An RSA private key as a JSON Web Key for the exponent e, its private values (d, dp, dq) inverted blindly from p and
 * q; qi (q⁻¹ mod p), which e does not change, is given.
 */
export function privateJwk(n: bigint, e: bigint, p: bigint, q: bigint, qi: bigint) {
  return {
    kty: "RSA",
    n: b64(n),
    e: b64(e),
    d: b64(blindedInverse(e, (p - 1n) * (q - 1n))),
    p: b64(p),
    q: b64(q),
    dp: b64(blindedInverse(e, p - 1n)),
    dq: b64(blindedInverse(e, q - 1n)),
    qi: b64(qi),
  };
}

/** A fresh key of two 1024-bit safe primes (e = 65537): the private half as PKCS #8 DER, to be sealed. */
export async function generatePbrsaKey(): Promise<{ privateDer: Buffer; publicKey: PbrsaPublicKey }> {
  for (;;) {
    const [p, q] = await Promise.all([safePrime(pbrsaModulusBits / 2), safePrime(pbrsaModulusBits / 2)]);
    const n = p * q;
    if (p === q || n.toString(2).length !== pbrsaModulusBits) continue;
    const key = createPrivateKey({ key: privateJwk(n, 65537n, p, q, inverseModPrime(q, p)), format: "jwk" });
    return {
      privateDer: key.export({ format: "der", type: "pkcs8" }),
      publicKey: { kty: "RSA", n: b64(n), e: b64(65537n) },
    };
  }
}

/** The key pair that `info` selects: (n, e') and its private half, as node:crypto keys. */
async function derivedKeys(
  privateKey: KeyObject,
  info: Uint8Array,
): Promise<{ privateKey: KeyObject; publicKey: KeyObject }> {
  const jwk = privateKey.export({ format: "jwk" });
  const [n, p, q, qi] = [big(jwk.n), big(jwk.p), big(jwk.q), big(jwk.qi)];
  const ePrime = await derivePublicExponent(bigintToBytes(n, modulusBytes), info);
  const derived = createPrivateKey({ key: privateJwk(n, ePrime, p, q, qi), format: "jwk" });
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
