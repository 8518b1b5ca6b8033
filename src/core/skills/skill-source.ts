/**
 * Where an agent's skills come from: directories of `<skill>/SKILL.md` files (the convention agents
 * share), read through this interface so the engine needs no file system (`createFsSkillSource`,
 * `createMemorySkillSource`).
 */

/** What every request shows of a skill (deepagents's progressive disclosure): its name and description. */
export interface SkillSummary {
  name: string;
  description: string;
}

/** A SKILL.md (or a skills directory) that could not be used, and why; the other skills still load. */
export interface SkillProblem {
  /** The file or directory, as the source names it. */
  path: string;
  /** A stable code: `invalid_skill`, `missing_directory`, `unreadable`, `outside_root`. */
  code: string;
  message: string;
}

export interface SkillListing {
  /** Sorted by name, so the index is the same text whatever order a directory lists its entries in. */
  skills: SkillSummary[];
  problems: SkillProblem[];
}

export interface SkillSource {
  /** Every usable skill's name and description; when two have one name, the later directory's wins. */
  list(): Promise<SkillListing>;
  /**
   * A skill's instructions (its SKILL.md without the front matter), or with `path` a file beside it,
   * inside its directory only. Names and paths come from the model: an unknown name is a
   * SkillNotFoundError, a path that is not plainly inside the skill an InvalidSkillPathError, a missing
   * file a SkillFileNotFoundError.
   */
  read(name: string, path?: string): Promise<string>;
}
