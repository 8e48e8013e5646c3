import { type RefObject, useCallback, useEffect, useState } from "react";
import { useHydrated } from "#app/lib/use-hydrated.ts";

/**
 * Submit stays disabled until the form is complete: every required field valid (ratings and
 * answers chosen, text longer than 5 characters) and at least one tag chosen. The server checks the same.
 * Call `update` from the form's change and input events.
 */
export function useFormComplete(form: RefObject<HTMLFormElement | null>) {
  const [complete, setComplete] = useState(false);
  const update = useCallback(() => {
    const element = form.current;
    if (!element) return;
    const hasTagPicker = element.querySelector('input[name="tags"]') !== null;
    const tagChosen = element.querySelector('input[name="tags"]:checked') !== null;
    setComplete(element.checkValidity() && (!hasTagPicker || tagChosen));
  }, [form]);
  useEffect(() => {
    // Values restored after a failed submission may already complete the form.
    const frame = requestAnimationFrame(update);
    return () => cancelAnimationFrame(frame);
  }, [update]);
  // Without JavaScript the button stays enabled and the server answers with the same messages.
  const hydrated = useHydrated();
  return { canSubmit: !hydrated || complete, update };
}
