import { describe, expect, it } from "vitest";
import { z } from "zod";
import { readBody } from "./api-request.server.ts";

const schema = z.object({ review: z.object({ review_text: z.string() }) }).strict();

function jsonRequest(body: string): Request {
  return new Request("http://localhost/api/v1/companies", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body,
  });
}

async function refusal(body: string) {
  const read = await readBody(jsonRequest(body), schema);
  if (read.ok) throw new Error(`accepted ${body.slice(0, 40)}`);
  return { status: read.response.status, problem: (await read.response.json()) as { errors: unknown[] } };
}

describe("text a JSON body may not carry", () => {
  it("refuses an unpaired surrogate in a value, naming its field", async () => {
    const answer = await refusal('{"review": {"review_text": "fine words \\ud800 and more"}}');
    expect(answer.status).toBe(400);
    expect(answer.problem.errors).toEqual([
      { field: "review.review_text", message: "must be well-formed Unicode text (no unpaired surrogates)" },
    ]);
  });

  it("refuses a lone low surrogate and one in a key", async () => {
    expect((await refusal('{"review": {"review_text": "\\udc00 alone"}}')).status).toBe(400);
    const inKey = await refusal('{"review": {"review_text": "fine", "x\\ud83d": 1}}');
    expect(inKey.problem.errors).toEqual([
      { field: "review.x\ud83d", message: "must be well-formed Unicode text (no unpaired surrogates)" },
    ]);
  });

  it("refuses NUL as before", async () => {
    const answer = await refusal('{"review": {"review_text": "a\\u0000b"}}');
    expect(answer.problem.errors).toEqual([
      { field: "review.review_text", message: "must not contain NUL characters" },
    ]);
  });

  it("takes characters outside the Basic Multilingual Plane, escaped or not", async () => {
    for (const text of ["a smile \\ud83d\\ude00", "a smile 😀", "€ and ࠀ"]) {
      const read = await readBody(jsonRequest(`{"review": {"review_text": "${text}"}}`), schema);
      expect(read.ok, text).toBe(true);
    }
  });
});
