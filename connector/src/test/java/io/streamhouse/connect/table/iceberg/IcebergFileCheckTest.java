package io.streamhouse.connect.table.iceberg;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * One spelling per location, so that a REST catalog's file:/// table and Hadoop's file:/ files
 * agree.
 */
class IcebergFileCheckTest {
  @Test
  void localSpellingsOfOneFileAreOneLocation() {
    assertThat(IcebergFileCheck.normalized("file:///w/t/data/a.parquet"))
        .isEqualTo("file:/w/t/data/a.parquet");
    assertThat(IcebergFileCheck.normalized("file:/w/t/data/a.parquet"))
        .isEqualTo("file:/w/t/data/a.parquet");
    assertThat(IcebergFileCheck.normalized("/w/t/data/a.parquet"))
        .isEqualTo("file:/w/t/data/a.parquet");
    assertThat(IcebergFileCheck.normalized("s3://bucket/w/t/data/a.parquet"))
        .isEqualTo("s3://bucket/w/t/data/a.parquet");
    assertThat(IcebergFileCheck.normalized("s3a://bucket//w")).isEqualTo("s3a://bucket//w");
  }
}
