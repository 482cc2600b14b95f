/** Level switch announcements (`gw.level.switched.<owner>`). */
export interface LevelEvents {
  levelSwitched(ownerId: string, level: number, until: number | undefined): void;
}
