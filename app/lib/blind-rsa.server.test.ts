import { createPrivateKey, createPublicKey, type KeyObject } from "node:crypto";
import { RSABSSA } from "@cloudflare/blindrsa-ts";
import { afterEach, describe, expect, it, vi } from "vitest";
import {
  blindSign,
  BlindSignError,
  generateSigningKey,
  keyIdOf,
  privateKeyOf,
  publicKeyOf,
  verifySignature,
} from "./blind-rsa.server.ts";
import { inverseModPrime, privateJwk } from "./pbrsa.server.ts";
import { bigintToBytes } from "./review-token.ts";
import { importPublicKey } from "./verification-token.ts";
import { modInverse } from "#app/lib/modular.ts";
// RFC 9474, Appendix A: the four test vectors (4096-bit key, one per variant).
import vectors from "./testdata/rfc9474-appendix-a.json" with { type: "json" };

type Vector = (typeof vectors)[number];

const hex = (value: string) => Buffer.from(value.replace(/^0x/, ""), "hex");
const big = (value: string) => BigInt(value.startsWith("0x") ? value : `0x${value}`);
function keysOf(v: Vector): { privateKey: KeyObject; publicKey: KeyObject; jwk: JsonWebKey } {
  const jwk = privateJwk(big(v.n), big(v.e), big(v.p), big(v.q), inverseModPrime(big(v.q), big(v.p)));
  const privateKey = createPrivateKey({ key: jwk, format: "jwk" });
  return { privateKey, publicKey: createPublicKey(privateKey), jwk };
}

const suites = {
  "RSABSSA-SHA384-PSS-Randomized": () => RSABSSA.SHA384.PSS.Randomized(),
  "RSABSSA-SHA384-PSSZERO-Randomized": () => RSABSSA.SHA384.PSSZero.Randomized(),
  "RSABSSA-SHA384-PSS-Deterministic": () => RSABSSA.SHA384.PSS.Deterministic(),
  "RSABSSA-SHA384-PSSZERO-Deterministic": () => RSABSSA.SHA384.PSSZero.Deterministic(),
} as const;

afterEach(() => {
  vi.restoreAllMocks();
});

describe("RFC 9474 Appendix A against our server code (node:crypto)", () => {
  it.each(vectors)("$name: BlindSign gives the vector's blind_sig, Verify accepts its sig", (v) => {
    const { privateKey, publicKey } = keysOf(v);
    const blindSig = blindSign(privateKey, hex(v.blinded_msg));
    expect(blindSig.toString("hex")).toBe(v.blind_sig);
    // Finalize by hand: s = blind_sig * inv mod n is the vector's signature.
    const s = (big(v.blind_sig) * big(v.inv)) % big(v.n);
    expect(s.toString(16).padStart(v.sig.length, "0")).toBe(v.sig);
    const saltLength = Number(v.sLen);
    expect(verifySignature(publicKey, hex(v.input_msg), hex(v.sig), saltLength)).toBe(true);
    // A changed message or signature fails.
    const tampered = hex(v.input_msg);
    tampered[0]! ^= 1;
    expect(verifySignature(publicKey, tampered, hex(v.sig), saltLength)).toBe(false);
    const badSig = hex(v.sig);
    badSig[badSig.length - 1]! ^= 1;
    expect(verifySignature(publicKey, hex(v.input_msg), badSig, saltLength)).toBe(false);
  });

  it("refuses a blinded message of the wrong size or not below the modulus", () => {
    const { privateKey } = keysOf(vectors[0]!);
    expect(() => blindSign(privateKey, Buffer.alloc(10))).toThrow(BlindSignError);
    expect(() => blindSign(privateKey, Buffer.alloc(512, 0xff))).toThrow(BlindSignError);
  });
});

describe("RFC 9474 Appendix A against the browser library (@cloudflare/blindrsa-ts)", () => {
  it.each(vectors)("$name: Prepare, Blind and Finalize give the vector's values", async (v) => {
    const suite = suites[v.name as keyof typeof suites]();
    const { jwk } = keysOf(v);
    const publicKey = await importPublicKey(jwk);
    // The library draws its randomness from getRandomValues: the message prefix, the salt, then r (= inv⁻¹).
    const n = big(v.n);
    const rBytes = Uint8Array.from(bigintToBytes(modInverse(big(v.inv), n), 512));
    const spy = vi.spyOn(crypto, "getRandomValues");
    spy
      .mockReturnValueOnce(new Uint8Array(hex(v.msg_prefix)))
      .mockReturnValueOnce(new Uint8Array(hex(v.salt)))
      .mockReturnValueOnce(rBytes);
    const input = suite.prepare(new Uint8Array(hex(v.msg)));
    expect(Buffer.from(input).toString("hex")).toBe(v.input_msg);
    const { blindedMsg, inv } = await suite.blind(publicKey, input);
    expect(Buffer.from(blindedMsg).toString("hex")).toBe(v.blinded_msg);
    expect(Buffer.from(inv).toString("hex")).toBe(v.inv.replace(/^0x/, "").padStart(1024, "0"));
    // The blind signature comes from our server code, and the library finalizes it into the vector's signature.
    const blindSig = blindSign(keysOf(v).privateKey, Buffer.from(blindedMsg));
    const sig = await suite.finalize(publicKey, input, new Uint8Array(blindSig), inv);
    expect(Buffer.from(sig).toString("hex")).toBe(v.sig);
  });
});

describe("a key of our own, end to end", () => {
  it("the browser library blinds, our server signs, the library finalizes, our server verifies", async () => {
    const { privateDer, publicKey } = await generateSigningKey();
    expect(keyIdOf(publicKey)).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const suite = RSABSSA.SHA384.PSS.Deterministic();
    const browserKey = await importPublicKey(publicKey);
    const message = new TextEncoder().encode("candor-verified-v1|example.com|2026-Q4|nonce");
    const { blindedMsg, inv } = await suite.blind(browserKey, message);
    const blindSig = blindSign(privateKeyOf(privateDer), Buffer.from(blindedMsg));
    // The server never saw the message: the blinded one differs from anything derived from it.
    expect(Buffer.from(blindedMsg).includes(Buffer.from(message))).toBe(false);
    const signature = await suite.finalize(browserKey, message, new Uint8Array(blindSig), inv);
    expect(verifySignature(publicKeyOf(publicKey), message, signature)).toBe(true);
    expect(verifySignature(publicKeyOf(publicKey), new TextEncoder().encode("another message"), signature)).toBe(false);
    // Another key's signature does not pass.
    const other = await generateSigningKey();
    expect(verifySignature(publicKeyOf(other.publicKey), message, signature)).toBe(false);
  });
});
