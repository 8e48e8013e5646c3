import { describe, expect, it } from "vitest";
import { isDatabaseUnavailable } from "./unavailable.server.ts";

const withCode = (code: string, extra: Record<string, unknown> = {}) =>
  Object.assign(new Error("database error"), { code, ...extra });

describe("isDatabaseUnavailable", () => {
  it.each([
    ["a refused connection", withCode("ECONNREFUSED", { syscall: "connect" })],
    ["a reset connection", withCode("ECONNRESET", { syscall: "read" })],
    ["a Unix socket that is gone", withCode("ENOENT", { syscall: "connect" })],
    ["pg_terminate_backend (57P01)", withCode("57P01")],
    ["a crash shutdown (57P02)", withCode("57P02")],
    ["a server starting up (57P03)", withCode("57P03")],
    ["a connection exception (08006)", withCode("08006")],
    ["too many connections (53300)", withCode("53300")],
    ["a connection that ended", new Error("Connection terminated unexpectedly")],
    ["a pool that waited too long", new Error("timeout exceeded when trying to connect")],
    ["a refusal wrapped as a cause", new Error("query failed", { cause: withCode("ECONNREFUSED") })],
    ["a refusal among several", new AggregateError([new Error("x"), withCode("ECONNREFUSED")])],
  ])("says yes to %s", (_label, error) => {
    expect(isDatabaseUnavailable(error)).toBe(true);
  });

  it.each([
    ["a unique violation (23505)", withCode("23505")],
    ["a syntax error (42601)", withCode("42601")],
    ["a missing file", withCode("ENOENT", { syscall: "open" })],
    ["SQLite's constraint error", withCode("SQLITE_CONSTRAINT_UNIQUE")],
    ["a plain error", new Error("Something else")],
    ["a thrown string", "ECONNREFUSED"],
    ["nothing", undefined],
    [
      "a cycle of causes",
      (() => {
        const error = new Error("loop") as Error & { cause?: unknown };
        error.cause = error;
        return error;
      })(),
    ],
  ])("says no to %s", (_label, error) => {
    expect(isDatabaseUnavailable(error)).toBe(false);
  });
});
