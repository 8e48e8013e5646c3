import { type ReactNode, useRef } from "react";
import { Form, useNavigation } from "react-router";
import { SubmitNotice } from "./submit-notice.tsx";
import { useFormComplete } from "./use-form-complete.ts";

/**
 * The form of a contribution (a company, a manager, a review): its fields, then what happens to the data, then Submit,
 * which stays disabled until the form is complete and while it is being sent.
 */
export function ContributionForm({ children, noValidate }: { children: ReactNode; noValidate?: boolean }) {
  const formRef = useRef<HTMLFormElement>(null);
  const { canSubmit, update } = useFormComplete(formRef);
  const navigation = useNavigation();
  return (
    <Form
      method="post"
      ref={formRef}
      onChange={update}
      onInput={update}
      className="stack review-form"
      noValidate={noValidate}
    >
      {children}
      <SubmitNotice />
      <button type="submit" className="button" disabled={!canSubmit || navigation.state === "submitting"}>
        Submit
      </button>
    </Form>
  );
}
