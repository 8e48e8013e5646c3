import { createPrivateKey } from "node:crypto";
import { RSAPBSSA } from "@cloudflare/blindrsa-ts";
import { describe, expect, it, vi } from "vitest";
import { modInverse } from "./modular.ts";
import type * as Modular from "./modular.ts";
import {
  blindedInverse,
  blindSignPartially,
  generatePbrsaKey,
  inverseModPrime,
  verifyPartially,
} from "./pbrsa.server.ts";
import {
  bytesToBigint,
  decodeReviewToken,
  derivePublicExponent,
  finalizeReviewToken,
  reviewTokenInfo,
  reviewTokenMessage,
  unblindPartially,
} from "./review-token.ts";
import { importPublicKey, toBase64url } from "./verification-token.ts";
// draft-irtf-cfrg-partially-blind-rsa, test vectors (RSAPBSSA-SHA384-PSS-Deterministic, with and without metadata
// and message), as published with the draft.
import vectors from "./testdata/pbrsa-draft-vectors.json" with { type: "json" };
// RFC 9474, Appendix A (4096-bit keys).
import rfcVectors from "./testdata/rfc9474-appendix-a.json" with { type: "json" };

/** Every modular inversion by Euclid (modular.ts), as (value, modulus): what the signer's timing could show. */
const inversions = vi.hoisted(() => [] as Array<[bigint, bigint]>);
vi.mock("./modular.ts", async (original) => {
  const actual = await original<typeof Modular>();
  return {
    ...actual,
    modInverse: (a: bigint, m: bigint) => {
      inversions.push([a, m]);
      return actual.modInverse(a, m);
    },
  };
});

const hex = (value: string) => Buffer.from(value, "hex");
const b64 = (value: string) => hex(value.length % 2 ? `0${value}` : value).toString("base64url");

function privateKeyOf(v: (typeof vectors)[number]) {
  const [p, q, d] = [BigInt(`0x${v.p}`), BigInt(`0x${v.q}`), BigInt(`0x${v.d}`)];
  const big = (x: bigint) => b64(x.toString(16));
  return createPrivateKey({
    key: {
      kty: "RSA",
      n: b64(v.n),
      e: b64(v.e),
      d: b64(v.d),
      p: b64(v.p),
      q: b64(v.q),
      dp: big(d % (p - 1n)),
      dq: big(d % (q - 1n)),
      qi: big(modInverse(q, p)),
    },
    format: "jwk",
  });
}

describe("the draft's test vectors against our server code (node:crypto)", () => {
  it.each(vectors.map((v, index) => ({ ...v, index })))("vector $index: e', BlindSign and Verify", async (v) => {
    const info = hex(v.info);
    expect((await derivePublicExponent(hex(v.n), info)).toString(16)).toBe(BigInt(`0x${v.eprime}`).toString(16));
    const signature = await blindSignPartially(privateKeyOf(v), hex(v.blinded_msg), info);
    expect(signature.toString("hex")).toBe(v.blind_sig);
    const publicKey = { kty: "RSA" as const, n: b64(v.n), e: b64(v.e) };
    expect(await verifyPartially(publicKey, hex(v.msg), info, hex(v.sig))).toBe(true);
    // Another metadata, another key: the signature does not verify.
    expect(await verifyPartially(publicKey, hex(v.msg), new TextEncoder().encode("other"), hex(v.sig))).toBe(false);
  });

  it.each(vectors.map((v, index) => ({ ...v, index })))(
    "vector $index: the browser's unblinding gives sig",
    async (v) => {
      const n = hex(v.n);
      const inverse = Buffer.from(
        modInverse(BigInt(`0x${v.r}`), bytesToBigint(n))
          .toString(16)
          .padStart(512, "0"),
        "hex",
      );
      const input = { modulus: n, blinded: hex(v.blinded_msg), inverse, blindSignature: hex(v.blind_sig) };
      const signature = await unblindPartially({ ...input, info: hex(v.info) });
      expect(Buffer.from(signature).toString("hex")).toBe(v.sig);
      // The same blind signature under other metadata is refused.
      await expect(unblindPartially({ ...input, info: new TextEncoder().encode("other") })).rejects.toThrow(
        "invalid signature",
      );
    },
  );
});

describe("a generated key with the browser library (@cloudflare/blindrsa-ts)", () => {
  it("signs what the library blinded, and the token verifies only for its manager and period", async () => {
    const { privateDer, publicKey } = await generatePbrsaKey();
    expect(Buffer.from(publicKey.n, "base64url")).toHaveLength(256);
    const privateKey = createPrivateKey({ key: privateDer, format: "der", type: "pkcs8" });
    const suite = RSAPBSSA.SHA384.PSS.Deterministic();
    const nonce = toBase64url(crypto.getRandomValues(new Uint8Array(32)));
    const info = reviewTokenInfo(7, "2026-Q4");
    const { blindedMsg, inv } = await suite.blind(await importPublicKey(publicKey), reviewTokenMessage(nonce), info);
    const blindSignature = await blindSignPartially(privateKey, blindedMsg, info);
    const token = await finalizeReviewToken({
      publicKey,
      managerId: 7,
      period: "2026-Q4",
      nonce,
      blinded: blindedMsg,
      inverse: inv,
      blindSignature: blindSignature.toString("base64url"),
    });
    const decoded = decodeReviewToken(token)!;
    const signature = Buffer.from(decoded.signature, "base64url");
    expect(await verifyPartially(publicKey, reviewTokenMessage(nonce), info, signature)).toBe(true);
    expect(await verifyPartially(publicKey, reviewTokenMessage(nonce), reviewTokenInfo(8, "2026-Q4"), signature)).toBe(
      false,
    );
    expect(await verifyPartially(publicKey, reviewTokenMessage(nonce), reviewTokenInfo(7, "2027-Q1"), signature)).toBe(
      false,
    );
    // A blind signature made for another manager is refused by the browser before it keeps the token.
    const foreign = await blindSignPartially(privateKey, blindedMsg, reviewTokenInfo(8, "2026-Q4"));
    await expect(
      finalizeReviewToken({
        publicKey,
        managerId: 7,
        period: "2026-Q4",
        nonce,
        blinded: blindedMsg,
        inverse: inv,
        blindSignature: foreign.toString("base64url"),
      }),
    ).rejects.toThrow("invalid signature");
  });
});

describe("the signer's inversions", () => {
  const big = (value: string) => BigInt(value.startsWith("0x") ? value : `0x${value}`);
  const keys = [...vectors, ...rfcVectors].map(({ name, p, q, e, d }) => ({ name, p, q, e, d }));

  it.each(keys)("give the private values of $name's test vector (the draft's and RFC 9474's)", (v) => {
    const [p, q, e, d] = [big(v.p), big(v.q), big(v.e), big(v.d)];
    const phi = (p - 1n) * (q - 1n);
    const inverse = blindedInverse(e, phi);
    // The draft gives d modulo φ(n), the RFC modulo λ(n): the CRT values (dp, dq) are the same either way.
    expect((inverse * e) % phi).toBe(1n);
    expect(inverse < phi).toBe(true);
    expect(blindedInverse(e, p - 1n)).toBe(d % (p - 1n));
    expect(blindedInverse(e, q - 1n)).toBe(d % (q - 1n));
    expect(inverseModPrime(q, p)).toBe(modInverse(q, p));
  });

  it("never run Euclid on a secret: only on the public exponent e' and a blinded residue", async () => {
    // The signer inverted e' modulo φ(n) with Euclid on φ itself, whose steps (and time) depend on it (fails so,
    // checked: φ(n) was the modulus).
    for (const v of vectors) {
      const key = privateKeyOf(v);
      const [p, q] = [BigInt(`0x${v.p}`), BigInt(`0x${v.q}`)];
      const secrets = [p, q, p - 1n, q - 1n, (p - 1n) * (q - 1n)];
      const ePrime = BigInt(`0x${v.eprime}`);
      inversions.length = 0;
      await blindSignPartially(key, hex(v.blinded_msg), hex(v.info));
      expect(inversions.length).toBeGreaterThan(0);
      for (const [value, modulus] of inversions) {
        expect(modulus).toBe(ePrime);
        expect(secrets.map((secret) => secret % ePrime)).not.toContain(value);
      }
    }
  });
});
