package io.streamhouse.connect.table.iceberg;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.iceberg.DataFile;

/**
 * Data files to and from bytes for the control topic. Iceberg's data files are Serializable (Spark
 * ships them the same way); the version changes whenever this encoding does.
 */
final class DataFilesCodec {
  static final int VERSION = 1;

  private DataFilesCodec() {}

  static byte[] encode(List<DataFile> files) {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
      out.writeObject(new ArrayList<>(files));
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot serialize data files", e);
    }
    return bytes.toByteArray();
  }

  @SuppressWarnings("unchecked")
  static List<DataFile> decode(int version, byte[] payload) {
    if (version != VERSION) {
      throw new IllegalArgumentException("Unknown data file encoding version " + version
          + " (this plugin reads version " + VERSION + "): are all workers on the same plugin version?");
    }
    try (ObjectInputStream in = new ObjectInputStream(new ByteArrayInputStream(payload)) {
      @Override
      protected Class<?> resolveClass(java.io.ObjectStreamClass desc) throws IOException, ClassNotFoundException {
        return Class.forName(desc.getName(), false, DataFilesCodec.class.getClassLoader());
      }
    }) {
      return (List<DataFile>) in.readObject();
    } catch (IOException | ClassNotFoundException e) {
      throw new IllegalStateException("Cannot deserialize data files", e);
    }
  }
}
