import { type RefObject, useCallback, useEffect, useState } from "react";
import { useHydrated } from "#app/lib/use-hydrated.ts";

/** One unanswered question: its name as the form shows it, the element to jump to, and its section's id. */
export type MissingField = { label: string; target: string; section: string };

/** Where the form stands: what is still missing, and how many questions it asks in all. */
export type Progress = { missing: MissingField[]; total: number };

type Control = HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement;

/** The name a person sees for a form control: its group's legend (radio, checkbox) or its label. */
function labelOf(element: Control): { label: string; target: string } | null {
  const grouped = element instanceof HTMLInputElement && (element.type === "radio" || element.type === "checkbox");
  if (grouped) {
    const group = element.closest("fieldset");
    const legend = group?.querySelector(":scope > legend")?.textContent?.trim();
    return legend && group?.id ? { label: legend, target: group.id } : null;
  }
  const label = element.labels?.[0]?.textContent?.trim();
  return label && element.id ? { label, target: element.id } : null;
}

/**
 * What still keeps the form from being complete, in the form's order: every required field that is not valid
 * (ratings and answers not chosen, text of 5 characters or fewer) and the tags when none is chosen; and how many
 * such questions the form asks (a group of radio buttons or the tags count once).
 */
export function formProgress(form: HTMLFormElement): Progress {
  const missing: MissingField[] = [];
  const asked = new Set<string>();
  for (const element of Array.from(form.elements)) {
    const control =
      element instanceof HTMLInputElement ||
      element instanceof HTMLSelectElement ||
      element instanceof HTMLTextAreaElement
        ? element
        : null;
    if (!control || control.disabled || !control.willValidate) continue;
    const isTag = control instanceof HTMLInputElement && control.name === "tags";
    const incomplete = isTag ? form.querySelector('input[name="tags"]:checked') === null : !control.checkValidity();
    // An optional field counts only while what it holds is not valid (a date typed halfway).
    if (!isTag && !control.required && !incomplete) continue;
    // A control without a visible name still counts: the form is incomplete all the same.
    const named = labelOf(control) ?? { label: control.name, target: control.id };
    const key = named.target || named.label;
    if (asked.has(key)) continue;
    if (isTag || control.required) asked.add(key);
    if (incomplete) missing.push({ ...named, section: control.closest("section.form-section")?.id ?? "" });
  }
  return { missing, total: asked.size };
}

function sameProgress(a: Progress, b: Progress): boolean {
  return (
    a.total === b.total &&
    a.missing.length === b.missing.length &&
    a.missing.every((field, index) => field.target === b.missing[index]?.target)
  );
}

/**
 * Submit stays disabled until the form is complete: every required field valid (ratings and
 * answers chosen, text longer than 5 characters) and at least one tag chosen. The server checks the same.
 * `progress` names what is left, for the list beside the disabled button and each section's count; null before
 * hydration (without JavaScript nothing is counted, the button stays enabled and the server answers with the same
 * messages). Call `update` from the form's change and input events; `restored` (a draft put back) counts again.
 */
export function useFormComplete(form: RefObject<HTMLFormElement | null>, restored?: unknown) {
  const [progress, setProgress] = useState<Progress | null>(null);
  const update = useCallback(() => {
    const element = form.current;
    if (!element) return;
    const now = formProgress(element);
    // Most keystrokes change nothing that is missing: keep the same object, so the form does not render again.
    setProgress((before) => (before && sameProgress(before, now) ? before : now));
  }, [form]);
  useEffect(() => {
    // Values restored after a failed submission, or from a draft, may already complete the form.
    const frame = requestAnimationFrame(update);
    return () => cancelAnimationFrame(frame);
  }, [update, restored]);
  const hydrated = useHydrated();
  const complete = progress !== null && progress.missing.length === 0;
  return { canSubmit: !hydrated || complete, progress: hydrated ? progress : null, update };
}
