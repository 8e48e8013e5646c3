import {
  companyCriteria,
  companyYesNoQuestions,
  criterionLabels,
  managerCriteria,
  managerYesNoQuestions,
  scaleLabels,
} from "#app/lib/ratings.ts";
import { FieldProblemText, problemAttributes, fieldClass } from "#app/components/form.tsx";
import type { FieldProblem } from "#app/lib/form-refusal.ts";
import { companyTags, managerTags } from "#app/lib/tags.ts";
import { RatingInput, YesNoCards } from "./choice-fields.tsx";
import { FormSection } from "./form-section.tsx";
import { ReviewText } from "./review-text.tsx";
import { TagPicker } from "./tag-picker.tsx";

/** Values to show again after a refused submission, and the message of each refused field. */
export type FormState = {
  values?: Record<string, unknown> | undefined;
  fieldErrors?: Record<string, FieldProblem> | undefined;
};

function text(values: FormState["values"], key: string): string | undefined {
  const value = values?.[key];
  return typeof value === "string" ? value : undefined;
}

function chosenTags(values: FormState["values"]): string[] {
  const tags = values?.tags;
  return Array.isArray(tags) ? tags.filter((tag): tag is string => typeof tag === "string") : [];
}

type ReviewFieldsProps<C extends keyof typeof criterionLabels, Q extends string> = {
  state: FormState;
  legend: string;
  criteria: readonly C[];
  /** Each yes/no field with its question, in the order asked. */
  questions: Readonly<Record<Q, string>>;
  tags: readonly string[];
  children?: React.ReactNode;
};

/** The review part of a form in three steps: ratings on the 1–5 scale, yes/no questions, then tags and text. */
function ReviewFields<C extends keyof typeof criterionLabels, Q extends string>({
  state,
  legend,
  criteria,
  questions,
  tags,
  children,
}: ReviewFieldsProps<C, Q>) {
  const { values, fieldErrors: errors } = state;
  return (
    <>
      <FormSection id="section-ratings" title={legend}>
        <p className="scale-key">
          {scaleLabels.map((word, index) => (
            <span key={word} className={`scale-key-item v${index + 1}`}>
              <strong>{index + 1}</strong> {word}
            </span>
          ))}
        </p>
        <div className="criteria-grid">
          {criteria.map((criterion) => (
            <RatingInput
              key={criterion}
              name={criterion}
              label={criterionLabels[criterion]}
              defaultValue={text(values, criterion)}
              error={errors?.[criterion]}
            />
          ))}
        </div>
      </FormSection>
      <FormSection id="section-questions" title="A few questions">
        <div className="yes-no-grid">
          {(Object.entries(questions) as Array<[Q, string]>).map(([name, question]) => (
            <YesNoCards
              key={name}
              name={name}
              question={question}
              defaultValue={text(values, name)}
              error={errors?.[name]}
            />
          ))}
        </div>
        {children}
      </FormSection>
      <FormSection id="section-words" title="Tags and your words">
        <TagPicker tags={tags} defaultValue={chosenTags(values)} error={errors?.tags} />
        <ReviewText label="Your review" defaultValue={text(values, "review_text")} error={errors?.review_text} />
      </FormSection>
    </>
  );
}

export function CompanyReviewFields({ state }: { state: FormState }) {
  const { values, fieldErrors: errors } = state;
  return (
    <ReviewFields
      state={state}
      legend="Rate the company"
      criteria={companyCriteria}
      questions={companyYesNoQuestions}
      tags={companyTags}
    >
      <div className={fieldClass(errors?.recent_layoffs)}>
        <label htmlFor="recent_layoffs">Recent layoffs (optional)</label>
        <p id="recent_layoffs-hint" className="hint">
          The day of the latest layoffs you know of. Leave empty if there were none.
        </p>
        <input
          id="recent_layoffs"
          name="recent_layoffs"
          type="date"
          defaultValue={text(values, "recent_layoffs")}
          {...problemAttributes(errors?.recent_layoffs, "recent_layoffs-error", "recent_layoffs-hint")}
        />
        <FieldProblemText id="recent_layoffs-error" problem={errors?.recent_layoffs} />
      </div>
    </ReviewFields>
  );
}

export function ManagerReviewFields({ state }: { state: FormState }) {
  return (
    <ReviewFields
      state={state}
      legend="Rate the manager"
      criteria={managerCriteria}
      questions={managerYesNoQuestions}
      tags={managerTags}
    />
  );
}
