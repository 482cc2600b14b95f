/**
 * A value compiled from text (or a number) once per distinct input and remembered, bounded: the
 * memo starts over when it holds too many. For what arrives with every request (a caller's
 * AllowModels, AllowIPs, ModelLimits, its client's address, the prices a call is charged at) but
 * takes few values, so the hot path never compiles one twice. A compile that throws is not
 * remembered; the value must not be changed by whoever gets it.
 */
export class CompiledOnce<T, K extends string | number = string> {
  private readonly compiled = new Map<K, T>();

  constructor(
    private readonly compile: (text: K) => T,
    private readonly max = 4096,
  ) {}

  get(text: K): T {
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
