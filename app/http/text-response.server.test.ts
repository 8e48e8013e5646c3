import { describe, expect, it } from "vitest";
import { TextResponse } from "./text-response.server.ts";

describe("a response whose body is a string kept as it is", () => {
  it("gives its text as it is until something reads the body", () => {
    const response = new TextResponse('{"ok":true}', { status: 202, headers: { "Content-Type": "application/json" } });
    expect(response.untouchedText).toBe('{"ok":true}');
    expect([response.status, response.headers.get("content-type"), response.bodyUsed]).toEqual([
      202,
      "application/json",
      false,
    ]);
  });

  it("reads as any Response: once, as text, JSON, bytes or a stream", async () => {
    const response = new TextResponse('{"text":"Grüße"}');
    expect(response.headers.get("content-type")).toBe("text/plain;charset=UTF-8");
    expect(await response.clone().json()).toEqual({ text: "Grüße" });
    expect(new TextDecoder().decode(await response.clone().arrayBuffer())).toBe('{"text":"Grüße"}');
    expect(await new Response(response.clone().body).text()).toBe('{"text":"Grüße"}');
    expect(await response.text()).toBe('{"text":"Grüße"}');
    expect(response.bodyUsed).toBe(true);
    expect(response.untouchedText).toBeUndefined();
    await expect(response.text()).rejects.toThrow(TypeError);
    expect(() => response.clone()).toThrow(TypeError);
  });

  it("is no longer untouched once its body stream is taken", () => {
    const response = new TextResponse("x");
    expect(response.body).not.toBeNull();
    expect(response.untouchedText).toBeUndefined();
  });
});
