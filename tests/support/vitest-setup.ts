// Runs before every Vitest test file, ahead of that file's own imports (vitest.config.ts `setupFiles`).
import { afterAll, afterEach, beforeEach } from "vitest";
import { assertNoConsoleErrors, watchConsoleErrors } from "./console-errors.ts";
import { clearOutbox, removeOutbox } from "./test-outbox.ts";

beforeEach(clearOutbox);
beforeEach(watchConsoleErrors);
afterEach(assertNoConsoleErrors);
afterAll(removeOutbox);
