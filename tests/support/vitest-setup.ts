// Runs before every Vitest test file, ahead of that file's own imports (vitest.config.ts `setupFiles`).
import { afterAll, beforeEach } from "vitest";
import { clearOutbox, removeOutbox } from "./test-outbox.ts";

beforeEach(clearOutbox);
afterAll(removeOutbox);
