/**
 * A value compiled from text once per distinct text and remembered, bounded: the memo starts
 * over when it holds too many. For lists that arrive with every request (a caller's AllowModels,
 * AllowIPs, ModelLimits) but change rarely, so the hot path never compiles them twice.
 */
export class CompiledOnce<T> {
  private readonly compiled = new Map<string, T>();

  constructor(
    private readonly compile: (text: string) => T,
    private readonly max = 4096,
  ) {}

  get(text: string): T {
    let value = this.compiled.get(text);
    if (value === undefined) {
      if (this.compiled.size >= this.max) {
        this.compiled.clear();
      }
      value = this.compile(text);
      this.compiled.set(text, value);
    }
    return value;
  }
}
