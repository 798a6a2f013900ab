// After `tsc` (npm's postbuild): the initialised PGlite cluster a new embedded
// data folder starts from (src/db/embedded/pglite-image.ts says why). Made once per
// PGlite version; a build with one already there leaves it.
import { buildPgliteImage } from "../dist/db/embedded/pglite-image.js";

await buildPgliteImage();
