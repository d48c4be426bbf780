"""Records to typed DataFrames: the declarations (:mod:`~opslib.client.frames.schema`),
the build of a read's frame from its pages (:mod:`~opslib.client.frames.build`), the
open objects' members and Arrow-to-pandas conversions
(:mod:`~opslib.client.frames.properties`), and moments written as text
(:mod:`~opslib.client.frames.moments`)."""
