import { YesNoCards } from "./choice-fields.tsx";
import { fillStateOfCity, KnownCities, type StartingCities, TextField } from "./company-fields.tsx";
import { FieldProblemText, problemAttributes, fieldClass } from "#app/components/form.tsx";
import type { FieldProblem } from "#app/lib/form-refusal.ts";
import { fieldLengths } from "#app/lib/limits.ts";

/**
 * The manager fields; the department only when adding a manager on their own. Added at a known `company`, the
 * manager is in its country (said, not asked) and starts in its city and state, with the country's known cities
 * suggested.
 */
export function ManagerFields({
  values,
  errors,
  withDepartment,
  company,
}: {
  values?: Record<string, unknown> | undefined;
  errors?: Record<string, FieldProblem> | undefined;
  withDepartment: boolean;
  company?:
    { country: string; countryName: string; city: string; state: string; cities?: StartingCities["items"] } | undefined;
}) {
  const value = (key: string) => {
    const entry = values?.[key];
    return typeof entry === "string" ? entry : undefined;
  };
  const place = (key: "city" | "state") => (values ? value(key) : company?.[key]);
  return (
    <>
      <TextField
        name="first_name"
        label="First name"
        value={value("first_name")}
        error={errors?.first_name}
        maxLength={fieldLengths.first_name}
      />
      <TextField
        name="last_name"
        label="Last name"
        value={value("last_name")}
        error={errors?.last_name}
        maxLength={fieldLengths.last_name}
      />
      <TextField
        name="title"
        label="Job title"
        value={value("title")}
        error={errors?.title}
        maxLength={fieldLengths.title}
      />
      {withDepartment ? (
        <div className={fieldClass(errors?.department)}>
          <label htmlFor="department">Department (optional)</label>
          <input
            id="department"
            name="department"
            type="text"
            maxLength={fieldLengths.department}
            defaultValue={value("department")}
            {...problemAttributes(errors?.department, "department-error")}
          />
          <FieldProblemText id="department-error" problem={errors?.department} />
        </div>
      ) : null}
      <TextField
        name="city"
        label="City"
        hint={
          company ? `In ${company.countryName}, like the company. Change the city if they work elsewhere.` : undefined
        }
        value={place("city")}
        error={errors?.city}
        maxLength={fieldLengths.city}
        list={company ? "city-list" : undefined}
        onChange={company ? (city) => fillStateOfCity(city, "city-list", "state") : undefined}
      />
      {company ? (
        <KnownCities
          country={company.country}
          listId="city-list"
          starting={company.cities ? { country: company.country, items: company.cities } : undefined}
        />
      ) : null}
      <TextField
        name="state"
        label="State or region"
        value={place("state")}
        error={errors?.state}
        maxLength={fieldLengths.state}
      />
      <TextField
        name="linkedin_url"
        label="LinkedIn profile"
        hint="For example linkedin.com/in/jane-doe"
        value={value("linkedin_url")}
        error={errors?.linkedin_url}
        maxLength={fieldLengths.linkedin_url}
      />
      <YesNoCards
        name="direct_reports"
        question="Does this manager have direct reports?"
        defaultValue={value("direct_reports")}
        error={errors?.direct_reports}
      />
    </>
  );
}
