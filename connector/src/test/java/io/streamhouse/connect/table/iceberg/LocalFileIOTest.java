package io.streamhouse.connect.table.iceberg;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.apache.iceberg.Schema;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.data.parquet.GenericParquetReaders;
import org.apache.iceberg.data.parquet.GenericParquetWriter;
import org.apache.iceberg.hadoop.HadoopOutputFile;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.FileAppender;
import org.apache.iceberg.io.OutputFile;
import org.apache.iceberg.parquet.Parquet;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Local files: every spelling of a location, tasks racing into one new folder, and Parquet data
 * files written through Hadoop's raw local file system (no checksum files, locations unchanged).
 */
class LocalFileIOTest {
  @TempDir Path dir;

  @Test
  void tasksCreatingFilesInTheSameNewFolderAtOnceAllSucceed() throws Exception {
    LocalFileIO io = new LocalFileIO();
    ExecutorService threads = Executors.newFixedThreadPool(8);
    try {
      for (int round = 0; round < 20; round++) {
        Path folder = dir.resolve("data/p=" + round);
        CountDownLatch start = new CountDownLatch(1);
        List<Future<?>> writes = new ArrayList<>();
        for (int t = 0; t < 8; t++) {
          String location = "file:" + folder.resolve("f-" + t + ".parquet");
          writes.add(
              threads.submit(
                  () -> {
                    start.await();
                    try (OutputStream out = io.newOutputFile(location).create()) {
                      out.write(1);
                    }
                    return null;
                  }));
        }
        start.countDown();
        for (Future<?> w : writes) {
          w.get();
        }
        assertThat(folder).isDirectory();
        try (var files = Files.list(folder)) {
          assertThat(files.count()).isEqualTo(8);
        }
      }
    } finally {
      threads.shutdownNow();
    }
  }

  @Test
  void everySpellingOfALocalLocationIsTheSameFileAndDeletesAreIdempotent() throws Exception {
    LocalFileIO io = new LocalFileIO();
    Path file = dir.resolve("a.bin");
    try (OutputStream out = io.newOutputFile(file.toString()).create()) {
      out.write(new byte[] {1, 2, 3});
    }
    assertThat(io.newInputFile("file:" + file).getLength()).isEqualTo(3);
    assertThat(io.newInputFile("file://" + file).exists()).isTrue();
    assertThat(io.newInputFile("file:////" + file).exists()).isTrue();
    assertThat(LocalFileIO.file("file://x/y")).isEqualTo(new java.io.File("/x/y"));
    assertThat(LocalFileIO.file("//")).isEqualTo(new java.io.File("/"));
    io.deleteFile("file:" + file);
    io.deleteFile(file.toString());
    assertThat(file).doesNotExist();
    assertThat(LocalFileIO.isLocal("/var/lib/lake")).isTrue();
    assertThat(LocalFileIO.isLocal("file:/var/lib/lake")).isTrue();
    assertThat(LocalFileIO.isLocal("s3://bucket/lake")).isFalse();
  }

  @Test
  void parquetFilesAreWrittenRawWithTheirLocationUnchanged() throws Exception {
    LocalFileIO io = new LocalFileIO();
    Schema schema = new Schema(Types.NestedField.required(1, "id", Types.LongType.get()));
    String location = dir.resolve("data/new-folder/f.parquet").toString();
    OutputFile out = io.newOutputFile(location);
    assertThat(out).isInstanceOf(HadoopOutputFile.class);
    assertThat(out.location()).isEqualTo(location);
    try (FileAppender<Record> writer =
        Parquet.write(out).schema(schema).createWriterFunc(GenericParquetWriter::create).build()) {
      for (long id = 0; id < 100; id++) {
        Record r = GenericRecord.create(schema);
        r.setField("id", id);
        writer.add(r);
      }
    }
    try (var files = Files.list(dir.resolve("data/new-folder"))) {
      assertThat(files.map(p -> p.getFileName().toString())).containsExactly("f.parquet");
    }
    try (CloseableIterable<Record> rows =
        Parquet.read(io.newInputFile(location))
            .project(schema)
            .createReaderFunc(t -> GenericParquetReaders.buildReader(schema, t))
            .build()) {
      assertThat(rows).hasSize(100);
    }
    // Every spelling is written at the plain path, as before.
    Path g = dir.resolve("data/g.parquet");
    assertThat(io.newOutputFile("file://" + g).location()).isEqualTo(g.toString());
    assertThat(io.newOutputFile("file:" + g).location()).isEqualTo(g.toString());
  }
}
