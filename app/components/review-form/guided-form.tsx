import { useRef } from "react";
import { Form, useNavigation } from "react-router";
import { ProgressContext } from "./form-section.tsx";
import type { FormState } from "./review-fields.tsx";
import { SubmitNotice } from "./submit-notice.tsx";
import { SubmitRow } from "./submit-row.tsx";
import { useDraft } from "./use-draft.ts";
import { useFormComplete } from "./use-form-complete.ts";

/**
 * A contribution form that guides: its draft kept in the tab (`draftKey`, null for none), Submit disabled until the
 * form is complete with what is still missing and how far along it is beside it, and the note on what happens to submitted data. `children`
 * gets the values to show: the server's after a refusal, else the draft's.
 *
 * A page that sends the form itself (the manager review with its one-review token) passes `onSubmit`, which
 * prevents the form post, `onEdit`, called on every change, and `busy` while its request runs.
 */
export function GuidedForm({
  draftKey,
  actionData,
  noValidate,
  onSubmit,
  onEdit,
  busy = false,
  children,
}: {
  draftKey: string | null;
  actionData: FormState | undefined;
  noValidate?: boolean;
  onSubmit?: (event: React.FormEvent<HTMLFormElement>) => void;
  onEdit?: () => void;
  busy?: boolean;
  children: (state: FormState) => React.ReactNode;
}) {
  const formRef = useRef<HTMLFormElement>(null);
  const draft = useDraft(draftKey, formRef);
  const { canSubmit, progress, update } = useFormComplete(formRef, draft.restored);
  const navigation = useNavigation();
  const changed = () => {
    update();
    draft.save();
    onEdit?.();
  };
  const state = actionData ?? (draft.restored ? { values: draft.restored } : {});
  return (
    <Form
      method="post"
      // The draft arrives after hydration: the fields start again from its values.
      key={draft.restored ? "draft" : "page"}
      ref={formRef}
      onChange={changed}
      onInput={changed}
      onSubmit={onSubmit}
      className="stack review-form"
      noValidate={noValidate}
    >
      <ProgressContext value={progress}>{children(state)}</ProgressContext>
      <SubmitNotice />
      <SubmitRow canSubmit={canSubmit} progress={progress} busy={busy || navigation.state === "submitting"} />
    </Form>
  );
}
