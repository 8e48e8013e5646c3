import {
  constants,
  createHash,
  createPrivateKey,
  createPublicKey,
  generateKeyPair,
  type KeyObject,
  privateDecrypt,
  publicEncrypt,
  verify,
} from "node:crypto";
import { promisify } from "node:util";

/**
 * RSA blind signatures, the signer's half (RFC 9474, RSABSSA-SHA384-PSS-Deterministic), on node:crypto alone:
 * BlindSign is the raw RSA operation `s = m^d mod n` (OpenSSL's private decryption without padding, with its own
 * blinding against timing) followed by the RFC's check `s^e mod n == m`; a finalized token is an ordinary RSASSA-PSS
 * signature with SHA-384, MGF1-SHA-384 and a 48-byte salt, checked by `crypto.verify`. The client's half (Blind,
 * Finalize) runs in the browser. docs/decisions/0030-blind-signed-verification-tokens.md says why this variant.
 */

export const modulusBits = 2048;
export const modulusBytes = modulusBits / 8;
/** RSABSSA-SHA384-PSS: the salt is as long as the SHA-384 digest. */
export const pssSaltLength = 48;

const generate = promisify(generateKeyPair);

/** A fresh RSA-2048 key pair (e = 65537): the private half as PKCS #8 DER, to be sealed before it is stored. */
export async function generateSigningKey(): Promise<{ privateDer: Buffer; publicKey: PublicKeyJwk }> {
  const { privateKey, publicKey } = await generate("rsa", { modulusLength: modulusBits, publicExponent: 65537 });
  return { privateDer: privateKey.export({ format: "der", type: "pkcs8" }), publicKey: publicJwkOf(publicKey) };
}

/** The public half as the JSON Web Key a browser imports (base64url modulus and exponent). */
export type PublicKeyJwk = { kty: "RSA"; n: string; e: string };

function publicJwkOf(key: KeyObject): PublicKeyJwk {
  const jwk = key.export({ format: "jwk" });
  if (jwk.kty !== "RSA" || !jwk.n || !jwk.e) throw new Error("Not an RSA public key.");
  return { kty: "RSA", n: jwk.n, e: jwk.e };
}

/** The key's public identity: SHA-256 of its modulus and exponent, what the browser compares with the public list. */
export function keyIdOf(key: PublicKeyJwk): string {
  return createHash("sha256").update(`${key.n}.${key.e}`).digest("base64url");
}

export function privateKeyOf(der: Buffer): KeyObject {
  return createPrivateKey({ key: der, format: "der", type: "pkcs8" });
}

export function publicKeyOf(jwk: PublicKeyJwk): KeyObject {
  return createPublicKey({ key: jwk, format: "jwk" });
}

/** A blinded message that is not a number below the modulus, or a signature that does not check out. */
export class BlindSignError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "BlindSignError";
  }
}

function asNumber(bytes: Buffer): bigint {
  return bytes.length === 0 ? 0n : BigInt(`0x${bytes.toString("hex")}`);
}

/** RFC 9474 section 4.3, BlindSign: the signature of a blinded message, checked before it leaves. */
export function blindSign(privateKey: KeyObject, blindedMessage: Buffer): Buffer {
  const jwk = privateKey.export({ format: "jwk" });
  const modulus = Buffer.from(jwk.n ?? "", "base64url");
  if (blindedMessage.length !== modulus.length) throw new BlindSignError("unexpected input size");
  const n = asNumber(modulus);
  const m = asNumber(blindedMessage);
  // RSASP1's range check: 0 <= m < n (OpenSSL would refuse too, with a less clear error).
  if (m >= n) throw new BlindSignError("message representative out of range");
  const signature = privateDecrypt({ key: privateKey, padding: constants.RSA_NO_PADDING }, blindedMessage);
  // Steps 3-4: m' = RSAVP1(pk, s); a fault in the computation must not leak the key.
  const check = publicEncrypt({ key: createPublicKey(privateKey), padding: constants.RSA_NO_PADDING }, signature);
  if (!check.equals(blindedMessage)) throw new BlindSignError("signing failure");
  return signature;
}

/** RFC 9474 section 4.5, Verify: true when `signature` is the key's RSASSA-PSS-SHA384 signature of `message`. */
export function verifySignature(
  publicKey: KeyObject,
  message: Uint8Array,
  signature: Uint8Array,
  saltLength = pssSaltLength,
): boolean {
  try {
    return verify(
      "sha384",
      message,
      { key: publicKey, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength },
      signature,
    );
  } catch {
    return false;
  }
}
