import { type RouteConfig, index, route } from "@react-router/dev/routes";

export default [
  index("routes/search.tsx", { id: "home" }),
  route("search", "routes/search.tsx", { id: "search" }),
  route("landing", "routes/landing.tsx"),
  route("company/:companyId", "routes/company.tsx"),
  route("managers", "routes/managers.tsx"),
  route("manager-profile/:managerId", "routes/manager-profile.tsx"),
  route("guidelines", "routes/guidelines.tsx"),
  route("privacy", "routes/privacy.tsx"),
  route("*", "routes/not-found.tsx"),
] satisfies RouteConfig;
