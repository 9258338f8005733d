/**
 * Where a project keeps its golden set, its surface catalog and its floor unless told otherwise. A
 * module of its own, importing nothing, so the command tree names them in `--help` without loading
 * what reads them.
 */

/** The default location of the cases file. */
export const defaultCasesFile = "cases/golden-cases.json"
/** The default location of the surface catalog. */
export const defaultSurfacesFile = "cases/surfaces.json"
/** The default location of the baseline. */
export const defaultBaselineFile = "baseline.json"
