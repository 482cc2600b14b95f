/** Reading a V8 `.cpuprofile`: the frames with the most self time, as text lines. */

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
}

export interface CpuProfile {
  nodes: { id: number; callFrame: CallFrame }[];
  samples: number[];
  timeDeltas: number[];
}

/** Where a frame lives, short: the package (for a dependency) or the workspace path, and the line. */
function place(frame: CallFrame): string {
  if (frame.url === '') {
    return '';
  }
  const path = frame.url.replace(/^file:\/\//, '');
  const dependency = /node_modules\/(?:\.pnpm\/[^/]+\/node_modules\/)?((?:@[^/]+\/)?[^/]+)\/(.*)$/.exec(path);
  const short = dependency
    ? `${dependency[1]}/${dependency[2]}`
    : path.replace(/^.*?\/(services|packages)\//, '$1/');
  return ` ${short}:${frame.lineNumber + 1}`;
}

/** The `count` frames with the most self time, each with its share of the busy (non-idle) time. */
export function topFrames(profile: CpuProfile, count: number): string[] {
  const frames = new Map(profile.nodes.map((node) => [node.id, node.callFrame]));
  const self = new Map<string, number>();
  let busy = 0;
  profile.samples.forEach((id, index) => {
    const frame = frames.get(id);
    const delta = profile.timeDeltas[index] ?? 0;
    if (!frame || frame.functionName === '(idle)') {
      return;
    }
    const name = `${frame.functionName || '(anonymous)'}${place(frame)}`;
    self.set(name, (self.get(name) ?? 0) + delta);
    busy += delta;
  });
  return [...self]
    .sort((a, b) => b[1] - a[1])
    .slice(0, count)
    .map(([name, micros]) => `${((micros / busy) * 100).toFixed(1).padStart(5)} %  ${name}`);
}
