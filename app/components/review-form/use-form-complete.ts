import { type RefObject, useCallback, useEffect, useState } from "react";
import { useHydrated } from "#app/lib/use-hydrated.ts";

/** One unanswered question: its name as the form shows it, and the element to jump to. */
export type MissingField = { label: string; target: string };

/** The name a person sees for a form control: its group's legend (radio, checkbox) or its label. */
function labelOf(element: HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement): MissingField | null {
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
 * (ratings and answers not chosen, text of 5 characters or fewer) and the tags when none is chosen.
 */
export function missingFields(form: HTMLFormElement): MissingField[] {
  const missing: MissingField[] = [];
  const seen = new Set<string>();
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
    if (!incomplete) continue;
    // A control without a visible name still counts: the form is incomplete all the same.
    const field = labelOf(control) ?? { label: control.name, target: control.id };
    if (seen.has(field.target || field.label)) continue;
    seen.add(field.target || field.label);
    missing.push(field);
  }
  return missing;
}

function sameFields(a: readonly MissingField[], b: readonly MissingField[]): boolean {
  return a.length === b.length && a.every((field, index) => field.target === b[index]?.target);
}

/**
 * Submit stays disabled until the form is complete: every required field valid (ratings and
 * answers chosen, text longer than 5 characters) and at least one tag chosen. The server checks the same.
 * `missing` names what is left, for the list beside the disabled button.
 * Call `update` from the form's change and input events; `restored` (a draft put back into the fields) counts again.
 */
export function useFormComplete(form: RefObject<HTMLFormElement | null>, restored?: unknown) {
  const [missing, setMissing] = useState<MissingField[] | null>(null);
  const update = useCallback(() => {
    const element = form.current;
    if (!element) return;
    const now = missingFields(element);
    // Most keystrokes change nothing that is missing: keep the same list, so the form does not render again.
    setMissing((before) => (before && sameFields(before, now) ? before : now));
  }, [form]);
  useEffect(() => {
    // Values restored after a failed submission, or from a draft, may already complete the form.
    const frame = requestAnimationFrame(update);
    return () => cancelAnimationFrame(frame);
  }, [update, restored]);
  // Without JavaScript the button stays enabled and the server answers with the same messages.
  const hydrated = useHydrated();
  const complete = missing !== null && missing.length === 0;
  return { canSubmit: !hydrated || complete, missing: hydrated ? (missing ?? []) : [], update };
}
