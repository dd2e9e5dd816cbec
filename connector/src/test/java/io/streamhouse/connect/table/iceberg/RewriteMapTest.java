package io.streamhouse.connect.table.iceberg;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.DataOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.apache.iceberg.hadoop.HadoopFileIO;
import org.apache.iceberg.io.FileIO;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Where a rewrite put each kept row, written and read back, and refused when it is not sound. */
class RewriteMapTest {
  @TempDir Path dir;

  /**
   * File a: 6 rows, positions 1 and 4 dropped; file b: 3 rows, all kept; the 7 kept rows go to x (4
   * rows) and y (3 rows) in read order.
   */
  private static RewriteMap sample() {
    RewriteMap.Builder builder = new RewriteMap.Builder();
    builder.startFile("a", 6);
    for (long p : new long[] {0, 2, 3, 5}) {
      builder.kept(p);
    }
    builder.endFile();
    builder.startFile("b", 3);
    builder.keptAll();
    builder.endFile();
    return builder.build(List.of(new RewriteMap.Output("x", 4), new RewriteMap.Output("y", 3)));
  }

  private static void assertSample(RewriteMap map) {
    assertThat(map.rewrote("a")).isTrue();
    assertThat(map.rewrote("c")).isFalse();
    assertThat(map.placeOf("a", 0)).contains(new RewriteMap.Place("x", 0));
    assertThat(map.placeOf("a", 1)).as("dropped").isEmpty();
    assertThat(map.placeOf("a", 3)).contains(new RewriteMap.Place("x", 2));
    assertThat(map.placeOf("a", 4)).as("dropped").isEmpty();
    assertThat(map.placeOf("a", 5)).contains(new RewriteMap.Place("x", 3));
    assertThat(map.placeOf("a", 6)).as("past the file").isEmpty();
    assertThat(map.placeOf("b", 0)).contains(new RewriteMap.Place("y", 0));
    assertThat(map.placeOf("b", 2)).contains(new RewriteMap.Place("y", 2));
    assertThat(map.placeOf("c", 0)).isEqualTo(Optional.empty());
    // And back: each written row's source.
    for (long p : new long[] {0, 2, 3, 5}) {
      RewriteMap.Place place = map.placeOf("a", p).orElseThrow();
      assertThat(map.sourceOf(place.location(), place.position()))
          .contains(new RewriteMap.Place("a", p));
    }
    assertThat(map.sourceOf("y", 1)).contains(new RewriteMap.Place("b", 1));
    assertThat(map.sourceOf("y", 3)).as("past the file").isEmpty();
    assertThat(map.sourceOf("z", 0)).as("not written").isEmpty();
  }

  @Test
  void keptRowsMoveToTheirRankAmongTheWrittenFiles() {
    assertSample(sample());
  }

  @Test
  void aMapReadBackSaysTheSame() {
    FileIO io = new HadoopFileIO(new org.apache.hadoop.conf.Configuration());
    String location = dir.resolve("map.bin").toString();
    sample().write(io.newOutputFile(location));
    assertSample(RewriteMap.read(io, location));
  }

  @Test
  void aMapThatKeptOtherThanItWroteIsNotBuilt() {
    RewriteMap.Builder builder = new RewriteMap.Builder();
    builder.startFile("a", 2);
    builder.keptAll();
    builder.endFile();
    assertThatThrownBy(() -> builder.build(List.of(new RewriteMap.Output("x", 3))))
        .hasMessageContaining("kept 2 rows but wrote 3");
  }

  @Test
  void unsoundMapsAreRefusedWhole() throws IOException {
    FileIO io = new HadoopFileIO(new org.apache.hadoop.conf.Configuration());
    Path garbage = dir.resolve("garbage.bin");
    Files.write(garbage, new byte[] {1, 2, 3, 4, 5, 6, 7, 8});
    assertThatThrownBy(() -> RewriteMap.read(io, garbage.toString()))
        .hasMessageContaining("not a rewrite map");

    Path huge = dir.resolve("huge-count.bin");
    try (OutputStream file = Files.newOutputStream(huge);
        DataOutputStream out = new DataOutputStream(file)) {
      out.writeInt(0x53484d31);
      out.writeInt(Integer.MAX_VALUE); // more inputs than the file has bytes
    }
    assertThatThrownBy(() -> RewriteMap.read(io, huge.toString()))
        .hasMessageContaining("bad count");

    Path unordered = dir.resolve("unordered.bin");
    try (OutputStream file = Files.newOutputStream(unordered);
        DataOutputStream out = new DataOutputStream(file)) {
      out.writeInt(0x53484d31);
      out.writeInt(1);
      out.writeUTF("a");
      out.writeLong(5); // rows
      out.writeLong(0); // first ordinal
      out.writeInt(2);
      out.writeLong(3);
      out.writeLong(1); // not ascending
      out.writeInt(0);
    }
    assertThatThrownBy(() -> RewriteMap.read(io, unordered.toString()))
        .hasMessageContaining("bad positions");

    Path truncated = dir.resolve("truncated.bin");
    byte[] whole;
    sample().write(io.newOutputFile(dir.resolve("whole.bin").toString()));
    whole = Files.readAllBytes(dir.resolve("whole.bin"));
    Files.write(truncated, java.util.Arrays.copyOf(whole, whole.length - 5));
    assertThatThrownBy(() -> RewriteMap.read(io, truncated.toString()))
        .hasMessageContaining("Cannot read rewrite map");
  }
}
