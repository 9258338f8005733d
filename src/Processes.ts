/** Processes of this machine, as the files that name them (a baseline's lock, a run's journal) need them. */

/** Whether the process `pid` still runs (one of another user's counts: it cannot be signalled, but it is there). */
export const isAlive = (pid: number): boolean => {
  if (pid === process.pid) return true
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as { code?: string }).code === "EPERM"
  }
}
