import { useSyncExternalStore } from "react";
import { decodeToken, quarterOf } from "./verification-token.ts";

/**
 * Verification tokens live in this browser's localStorage only: never sent with the account, never synced. Each
 * one is removed when a review spends it. Client-safe and small: the review form reads them without the library.
 */
const storageKey = "candor-verification-tokens";
const inFlightKey = "candor-verification-in-flight";

function read(storage: Storage, key: string): string[] {
  try {
    const value: unknown = JSON.parse(storage.getItem(key) ?? "[]");
    return Array.isArray(value) ? value.filter((item): item is string => typeof item === "string") : [];
  } catch {
    return [];
  }
}

/** Tokens of this quarter (older ones are ignored: the server refuses them, and the next write drops them). */
function storedTokens(): string[] {
  const quarter = quarterOf(new Date());
  return read(localStorage, storageKey).filter((token) => decodeToken(token)?.quarter === quarter);
}

const changed = "candor-verification-tokens-changed";

function write(tokens: string[]): void {
  localStorage.setItem(storageKey, JSON.stringify(tokens));
  window.dispatchEvent(new Event(changed));
}

export function addTokens(tokens: string[]): void {
  write([...new Set([...storedTokens(), ...tokens])]);
}

function removeToken(token: string): void {
  write(storedTokens().filter((item) => item !== token));
}

function subscribe(onChange: () => void): () => void {
  window.addEventListener(changed, onChange);
  window.addEventListener("storage", onChange);
  return () => {
    window.removeEventListener(changed, onChange);
    window.removeEventListener("storage", onChange);
  };
}

/** The tokens this browser holds, as a React store: none in the server render, the stored ones once hydrated. */
export function useStoredTokens(): string[] {
  const snapshot = useSyncExternalStore(
    subscribe,
    () => JSON.stringify(storedTokens()),
    () => "[]",
  );
  return JSON.parse(snapshot) as string[];
}

/** A token for this domain among `tokens`, if there is one. */
export function tokenFor(tokens: string[], domain: string): string | undefined {
  return tokens.find((token) => decodeToken(token)?.domain === domain);
}

/** How many tokens for each domain. */
export function tokenCounts(tokens: string[]): [string, number][] {
  const counts = new Map<string, number>();
  for (const token of tokens) {
    const domain = decodeToken(token)?.domain;
    if (domain) counts.set(domain, (counts.get(domain) ?? 0) + 1);
  }
  return [...counts];
}

/**
 * A token leaves the store when its review is sent, and waits in the tab's sessionStorage until the answer: a form
 * that comes back refused for another reason puts it back; a refused token (spent, invalid) stays out.
 */
export function markInFlight(token: string): void {
  removeToken(token);
  sessionStorage.setItem(inFlightKey, token);
}

export function settleInFlight(putBack: boolean): void {
  const token = sessionStorage.getItem(inFlightKey);
  sessionStorage.removeItem(inFlightKey);
  if (token && putBack) addTokens([token]);
}
