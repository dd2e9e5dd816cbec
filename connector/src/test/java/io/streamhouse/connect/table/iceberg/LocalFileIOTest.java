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
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Local files without Hadoop: every spelling of a location, and tasks racing into one new folder.
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
    io.deleteFile("file:" + file);
    io.deleteFile(file.toString());
    assertThat(file).doesNotExist();
    assertThat(LocalFileIO.isLocal("/var/lib/lake")).isTrue();
    assertThat(LocalFileIO.isLocal("file:/var/lib/lake")).isTrue();
    assertThat(LocalFileIO.isLocal("s3://bucket/lake")).isFalse();
  }
}
