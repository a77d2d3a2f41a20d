/* libfixture_dep.so: a shared library fixture_missing_dep links against, so
 * tests can leave it out and watch the dynamic loader fail. */
const char* fixture_dep_reason(void);

const char* fixture_dep_reason(void) {
  return "fixture_dep was found";
}
