/** What the terminal the CLI writes to can show. */

/** Whether output may be painted: on a terminal, unless NO_COLOR is set. */
export const useColor = (): boolean => process.stdout.isTTY === true && (process.env["NO_COLOR"] ?? "") === ""
