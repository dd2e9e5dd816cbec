package io.streamhouse.connect.decode;

import java.util.Arrays;

/**
 * Where in a record value a converter is ({@code customer.name}, {@code tags[3]}), kept as a stack
 * of segments and spelt out only when an error names it ({@link #toString()}). Converting a value
 * pushes and pops segments and never builds or looks up a path string: a path made for every nested
 * field and list element would be allocation per value, and a map of paths a lookup per value.
 *
 * <p>Not thread-safe: one converter, one thread. A converter starts each value with {@link
 * #reset()}, so a path left behind by an error does not carry over.
 */
public final class ValuePath {
  /** Marks a segment that is a name, not a list index. */
  private static final int NAMED = -1;

  private Object[] names = new Object[16];
  private int[] indexes = new int[16];
  private int depth;

  /** Back at the record value itself. */
  public void reset() {
    depth = 0;
  }

  /** Into the field or map entry {@code name} (its text, {@code String.valueOf}, names it). */
  public void enter(Object name) {
    push(name, NAMED);
  }

  /** Into the list element at {@code index}. */
  public void enterElement(int index) {
    push(null, index);
  }

  /** Back out of the segment entered last. */
  public void leave() {
    depth--;
  }

  private void push(Object name, int index) {
    if (depth == names.length) {
      names = Arrays.copyOf(names, depth * 2);
      indexes = Arrays.copyOf(indexes, depth * 2);
    }
    names[depth] = name;
    indexes[depth] = index;
    depth++;
  }

  /** The dotted path, or {@code <value>} for the record value as a whole. */
  @Override
  public String toString() {
    if (depth == 0) {
      return "<value>";
    }
    StringBuilder path = new StringBuilder();
    for (int i = 0; i < depth; i++) {
      if (indexes[i] != NAMED) {
        path.append('[').append(indexes[i]).append(']');
      } else {
        if (i > 0) {
          path.append('.');
        }
        path.append(names[i]);
      }
    }
    return path.toString();
  }
}
