import { useId } from "react";

/** The form's message box: errors are announced to screen readers as they appear. */
export function FormMessage({ error, success }: { error?: string | undefined; success?: string | undefined }) {
  if (error) {
    return (
      <div className="message-box error" role="alert">
        {error}
      </div>
    );
  }
  if (success) {
    return (
      <div className="message-box success" role="status">
        {success}
      </div>
    );
  }
  return null;
}

type FieldProps = {
  label: string;
  name: string;
  type?: string;
  error?: string | undefined;
  /** Marks the field red without its own message (the form's message says what is wrong). */
  invalid?: boolean;
  hint?: string;
} & Omit<React.InputHTMLAttributes<HTMLInputElement>, "name" | "type">;

/** A labelled input whose error is tied to it for assistive technology. */
export function Field({ label, name, type = "text", error, invalid, hint, ...input }: FieldProps) {
  const id = useId();
  const describedBy = [hint ? `${id}-hint` : null, error ? `${id}-error` : null].filter(Boolean).join(" ") || undefined;
  const isInvalid = Boolean(error) || Boolean(invalid);
  return (
    <div className={isInvalid ? "field invalid" : "field"}>
      <label htmlFor={id}>{label}</label>
      {hint ? (
        <p id={`${id}-hint`} className="hint">
          {hint}
        </p>
      ) : null}
      <input
        id={id}
        name={name}
        type={type}
        aria-invalid={isInvalid || undefined}
        aria-describedby={describedBy}
        {...input}
      />
      {error ? (
        <p id={`${id}-error`} className="field-error">
          {error}
        </p>
      ) : null}
    </div>
  );
}

type TextAreaFieldProps = {
  label: string;
  name: string;
  error?: string | undefined;
} & Omit<React.TextareaHTMLAttributes<HTMLTextAreaElement>, "name">;

/** A labelled text area whose error is tied to it for assistive technology. */
export function TextAreaField({ label, name, error, ...textarea }: TextAreaFieldProps) {
  const id = useId();
  return (
    <div className={error ? "field invalid" : "field"}>
      <label htmlFor={id}>{label}</label>
      <textarea
        id={id}
        name={name}
        aria-invalid={error ? true : undefined}
        aria-describedby={error ? `${id}-error` : undefined}
        {...textarea}
      />
      {error ? (
        <p id={`${id}-error`} className="field-error">
          {error}
        </p>
      ) : null}
    </div>
  );
}
