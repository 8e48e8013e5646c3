import { type RefObject, useCallback, useEffect, useMemo } from "react";
import { useLocation, useNavigation } from "react-router";
import { paths } from "#app/lib/paths.ts";
import { useHydrated } from "#app/lib/use-hydrated.ts";

/** What a form held, as the fields read it back: one string per field, the tags as a list. */
export type Draft = Record<string, string | string[]>;

const prefix = "candor-draft:";
const signInPath = new URL(paths.signIn(), "http://candor.invalid").pathname;

function storage(): Storage | null {
  try {
    return window.sessionStorage;
  } catch {
    // Storage turned off in the browser: the form works as before, without a draft.
    return null;
  }
}

function readDraft(key: string): Draft | null {
  try {
    const parsed: unknown = JSON.parse(storage()?.getItem(prefix + key) ?? "null");
    if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) return null;
    const draft: Draft = {};
    for (const [name, value] of Object.entries(parsed)) {
      if (typeof value === "string") draft[name] = value;
      else if (Array.isArray(value)) draft[name] = value.filter((item): item is string => typeof item === "string");
    }
    return draft;
  } catch {
    return null;
  }
}

/** Forgets the draft of `key`: a page that sends its form itself calls this once the submission is accepted. */
export function dropDraft(key: string): void {
  storage()?.removeItem(prefix + key);
}

function draftOf(form: HTMLFormElement): Draft {
  const draft: Draft = {};
  for (const [name, value] of new FormData(form)) {
    if (typeof value !== "string") continue;
    if (name === "tags") draft.tags = [...(draft.tags ?? []), value];
    else draft[name] = value;
  }
  return draft;
}

/**
 * The form's draft, kept in this browser tab only (sessionStorage), never sent before Submit: it survives a reload, a
 * lost connection and a detour through sign-in when the session ended, and goes when the submission is accepted or
 * the tab is closed (docs/decisions/0023-review-drafts-stay-in-the-tab.md).
 *
 * `restored` is the draft found when the page loaded (after hydration), for the fields' default values; `save` is
 * called on every change. A null `key` keeps no draft.
 */
export function useDraft(key: string | null, form: RefObject<HTMLFormElement | null>) {
  const hydrated = useHydrated();
  const restored = useMemo(() => (hydrated && key !== null ? readDraft(key) : null), [hydrated, key]);
  const save = useCallback(() => {
    if (!form.current || key === null) return;
    try {
      storage()?.setItem(prefix + key, JSON.stringify(draftOf(form.current)));
    } catch {
      // Full or refused storage: the draft is a convenience, the form goes on without it.
    }
  }, [form, key]);

  // A submission that leads to another page was accepted (a refusal stays here; an ended session leads to sign-in,
  // and back): the draft has done its work.
  const navigation = useNavigation();
  const { pathname } = useLocation();
  useEffect(() => {
    if (key === null || navigation.state !== "loading" || !navigation.formData) return;
    const destination = navigation.location.pathname;
    if (destination !== pathname && destination !== signInPath) dropDraft(key);
  }, [navigation, pathname, key]);

  return { restored, save };
}
